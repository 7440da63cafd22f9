import json
import sys

# promptfoo passes the prompt as the first argument.
prompt = sys.argv[1]
words = prompt.split()
print(json.dumps({"words": len(words), "first": words[0] if words else "", "shout": prompt.upper()}))
