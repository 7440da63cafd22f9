# Runs promptfoo Python assertions as an evalgate program check (written by
# `evalgate import promptfoo`). Usage:
#   python3 python.py [--config JSON] --inline K [THRESHOLD]   the K-th inline assertion of the row
#   python3 python.py [--config JSON] [--fn NAME] FILE [THRESHOLD]
#                                              a module's get_assert(output, context), or NAME
# --config is the assertion's config, context['config'] as promptfoo gives it.
# Inline code comes with each request, in the row's code.python[K], so one
# process serves every test of a suite; it is called as promptfoo does: a
# one-line body is an expression, a longer one the body of a function of
# output and context. Each request is a JSON line
# {"input","output","trace","vars"}; vars holds the test's vars under
# "vars". A bool passes or fails; a number is a score that passes when it
# reaches THRESHOLD (else when it is above 0); a dict {pass, score, reason}
# is taken as it is; anything else, None included, fails.
import importlib.util
import json
import math
import sys

# What an assertion prints goes to stderr: stdout is the program check's
# answers.
out, sys.stdout = sys.stdout, sys.stderr

argv = sys.argv[1:]
config, fn_name = None, "get_assert"
while argv and argv[0] in ("--config", "--fn"):
    if argv[0] == "--config":
        config = json.loads(argv[1])
    else:
        fn_name = argv[1]
    argv = argv[2:]
inline = int(argv[1]) if argv[0] == "--inline" else -1
args = argv[2:] if inline >= 0 else argv[1:]
threshold = float(args[0]) if args else None
module_fn = None
if inline < 0:
    spec = importlib.util.spec_from_file_location("promptfoo_assertion", argv[0])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module_fn = getattr(module, fn_name)
compiled = {}


def fn_for(row):
    """The assertion a request asks for."""
    if inline < 0:
        return module_fn
    codes = (row.get("code") or {}).get("python") or []
    code = (codes[inline] if inline < len(codes) else "").strip()
    fn = compiled.get(code)
    if fn is None:
        if "\n" in code or code.startswith("return"):
            body = "\n".join("    " + line for line in code.splitlines())
        else:
            body = "    return (" + code + ")"
        scope = {}
        exec("def _assert(output, context):\n" + body + "\n", scope)
        fn = scope["_assert"]
        if len(compiled) >= 1000:
            compiled.clear()
        compiled[code] = fn
    return fn


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
        if config is not None:
            context["config"] = json.loads(json.dumps(config))
        result = answer(fn_for(row)(output, context))
    except Exception as e:  # the assertion's own failure fails its check
        result = {"pass": False, "reason": ("the assertion raised: %s" % e)[:300]}
    out.write(json.dumps(result) + "\n")
    out.flush()
