# Runs one promptfoo Python assertion as an evalgate program check (written
# by `evalgate import promptfoo`). Usage:
#   python3 python.py CODE_FILE [THRESHOLD]
# CODE_FILE ending in .inline.py holds the assertion's inline code, called as
# promptfoo does: a one-line body is an expression, a longer one the body
# of a function of output and context. Any other file is a module whose
# get_assert(output, context) is called. Each request is a JSON line
# {"input","output","trace","vars"}; vars holds the test's vars under
# "vars". A bool passes or fails; a number is a score that passes when it
# reaches THRESHOLD (else when it is above 0); a dict {pass, score, reason}
# is taken as it is; anything else, None included, fails.
import importlib.util
import json
import math
import sys

path = sys.argv[1]
threshold = float(sys.argv[2]) if len(sys.argv) > 2 else None

if path.endswith(".inline.py"):
    with open(path, encoding="utf-8") as f:
        code = f.read().strip()
    if "\n" in code or code.startswith("return"):
        body = "\n".join("    " + line for line in code.splitlines())
    else:
        body = "    return (" + code + ")"
    scope = {}
    exec("def _assert(output, context):\n" + body + "\n", scope)
    fn = scope["_assert"]
else:
    spec = importlib.util.spec_from_file_location("promptfoo_assertion", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = module.get_assert


def answer(r):
    if isinstance(r, bool):
        return {"pass": r}
    if isinstance(r, (int, float)) and math.isfinite(r):
        score = min(1.0, max(0.0, float(r)))
        return {"pass": r > 0 if threshold is None else r >= threshold, "score": score}
    if isinstance(r, dict) and "pass" in r:
        out = {"pass": bool(r["pass"])}
        s = r.get("score")
        if isinstance(s, (int, float)) and not isinstance(s, bool) and math.isfinite(s):
            out["score"] = min(1.0, max(0.0, float(s)))
        if isinstance(r.get("reason"), str):
            out["reason"] = r["reason"][:500]
        return out
    return {"pass": False, "reason": "the assertion returned %s, not a bool, a number or a grading result" % type(r).__name__}


for line in sys.stdin:
    try:
        req = json.loads(line)
        row = req.get("vars") or {}
        variables = row.get("vars") or {}
        output = req["output"] if isinstance(req["output"], str) else json.dumps(req["output"])
        context = {"vars": variables, "prompt": row.get("input"), "test": {"vars": variables}}
        result = answer(fn(output, context))
    except Exception as e:  # the assertion's own failure fails its check
        result = {"pass": False, "reason": ("the assertion raised: %s" % e)[:300]}
    print(json.dumps(result), flush=True)
