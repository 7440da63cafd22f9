#!/bin/sh
# Fails its task with an output made to misbehave when the failure is
# explained: a newline and a workflow command, a terminal escape, and the
# token the config passes it on purpose (agent.env), which the
# explanation must redact.
read -r task
printf '{"type":"final","output":"\\n::error::forged in an explanation\\u001b[31m %s"}\n' "$PASSED_ON"
