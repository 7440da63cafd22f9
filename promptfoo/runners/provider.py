# Runs a promptfoo Python provider as an evalgate plain agent (written by
# `evalgate import promptfoo`). Usage:
#   python3 provider.py [--config JSON] PROVIDER_FILE [FUNCTION]
# The prompt comes on stdin (a chat prompt as its JSON); the provider's
# call_api(prompt, options, context) (or FUNCTION) is called as promptfoo
# calls it, with the provider's config as options["config"], and its
# "output" is printed: a string as it is, anything else as JSON. An
# "error" it returns ends the task with exit status 1.
import importlib.util
import json
import os
import sys

# What the provider prints goes to stderr: stdout is its output.
out, sys.stdout = sys.stdout, sys.stderr
args = sys.argv[1:]
config = {}
if len(args) > 1 and args[0] == "--config":
    config = json.loads(args[1])
    args = args[2:]
path = args[0]
name = args[1] if len(args) > 1 else "call_api"
sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
spec = importlib.util.spec_from_file_location("promptfoo_provider", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
prompt = sys.stdin.read()
result = getattr(module, name)(prompt, {"config": config}, {"vars": {}})
if isinstance(result, dict) and result.get("error"):
    print(str(result["error"]), file=sys.stderr)
    sys.exit(1)
output = result.get("output") if isinstance(result, dict) else result
out.write(output if isinstance(output, str) else json.dumps(output))
out.flush()
