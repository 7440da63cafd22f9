#!/usr/bin/env python3
"""A rubric judge for evalgate, written from docs/judges.md alone.

stdin:  {"criteria":[{"criterion","weight"}],"input","output","trace"}
stdout: {"criteria":[{"met":true,"reason":"..."}]}

A criterion is met when the word it quotes ('Says "refund".') appears in the
output. Every request received is appended, one JSON line each, to the file
named by the first argument, so a test can see exactly what evalgate sent.
"""
import json
import re
import sys

request = json.load(sys.stdin)
if len(sys.argv) > 1:
    with open(sys.argv[1], "a", encoding="utf-8") as log:
        log.write(json.dumps(request, sort_keys=True) + "\n")

output = request["output"]
text = output if isinstance(output, str) else json.dumps(output)
verdicts = []
for c in request["criteria"]:
    m = re.search(r'"([^"]+)"', c["criterion"])
    met = bool(m) and m.group(1).lower() in text.lower()
    verdicts.append({"met": met, "reason": "quoted word %s" % ("found" if met else "missing")})
json.dump({"criteria": verdicts}, sys.stdout)
