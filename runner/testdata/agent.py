#!/usr/bin/env python3
"""A test agent that speaks the evalgate/1 JSON Lines protocol, and nothing else.

It uses only the Python standard library and reads the task line from stdin,
so it is an independent check of the exec driver, and an agent the
end-to-end tests can run.

What it does is chosen by the task input. A non-object input is echoed back
as the output. An object input may hold:

  "usage":    [{"model": ..., "inputTokens": ..., "outputTokens": ..., "costUsd": ...}]
              usage lines to send first
  "call":     [{"name": "crm:lookup", "arguments": {...}}]
              tool calls to make one after the other, each waiting for its
              tool_result
  "answer":   the output (any JSON value)
  "answerFromTool": true
              the output is the content of the last tool result
  "behaviour": one of
      "echo"     (default) the output is "answer", or the content of the last
                 tool result with answerFromTool, or else the whole input
      "results"  the output is the list of tool_result messages received
      "memory"   the output is {"memory": <task memory>, "tools": [<tool names>]}
      "env"      the output maps EVALGATE_SUITE_ID, EVALGATE_TASK_ID,
                 EVALGATE_TRIAL and the names in "envNames" to their values
                 (absent names are left out)
      "error"    sends {"type": "error", "message": "message" or "agent gave up"}
      "crash"    writes to stderr and exits with "exitCode" (default 3), no final
      "hang"     sleeps forever, once it has written its pid and a newline to
                 the file "pidFile" names, if any
      "garbage"  writes a line that is not JSON, then sleeps
"""

import json
import os
import sys
import time


def send(msg):
    sys.stdout.write(json.dumps(msg, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def read_message():
    line = sys.stdin.readline()
    if not line:
        sys.stderr.write("agent.py: stdin closed\n")
        sys.exit(4)
    return json.loads(line)


def main():
    task = read_message()
    if task.get("type") != "task" or task.get("protocol") != "evalgate/1":
        sys.stderr.write("agent.py: expected an evalgate/1 task line\n")
        return 5
    inp = task.get("input")
    if not isinstance(inp, dict):
        send({"type": "final", "output": inp})
        return 0

    for usage in inp.get("usage", []):
        send(dict(usage, type="usage"))

    received = []
    for i, call in enumerate(inp.get("call", [])):
        call_id = "call-%d" % (i + 1)
        send({"type": "tool_call", "id": call_id, "name": call["name"],
              "arguments": call.get("arguments", {})})
        result = read_message()
        if result.get("type") != "tool_result" or result.get("id") != call_id:
            sys.stderr.write("agent.py: expected the tool_result of %s\n" % call_id)
            return 6
        received.append(result)

    behaviour = inp.get("behaviour", "echo")
    if behaviour == "echo":
        if inp.get("answerFromTool") and received:
            output = received[-1].get("content")
        elif "answer" in inp:
            output = inp["answer"]
        else:
            output = inp
        send({"type": "final", "output": output})
    elif behaviour == "results":
        send({"type": "final", "output": received})
    elif behaviour == "memory":
        send({"type": "final", "output": {
            "memory": task.get("memory"),
            "tools": [t.get("name") for t in task.get("tools", [])],
        }})
    elif behaviour == "env":
        names = ["EVALGATE_SUITE_ID", "EVALGATE_TASK_ID", "EVALGATE_TRIAL"] + inp.get("envNames", [])
        send({"type": "final", "output": {n: os.environ[n] for n in names if n in os.environ}})
    elif behaviour == "error":
        send({"type": "error", "message": inp.get("message", "agent gave up")})
    elif behaviour == "crash":
        sys.stderr.write("agent.py: crashing on purpose\n")
        sys.stderr.flush()
        return int(inp.get("exitCode", 3))
    elif behaviour == "hang":
        if "pidFile" in inp:
            with open(inp["pidFile"], "w") as f:
                f.write("%d\n" % os.getpid())
        while True:
            time.sleep(3600)
    elif behaviour == "garbage":
        sys.stdout.write("this is not JSON\n")
        sys.stdout.flush()
        while True:
            time.sleep(3600)
    else:
        sys.stderr.write("agent.py: unknown behaviour %r\n" % behaviour)
        return 7
    return 0


if __name__ == "__main__":
    sys.exit(main())
