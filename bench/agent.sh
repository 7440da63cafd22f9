#!/bin/sh
# agent.sh: the bench's deterministic agent for promptfoo's exec: provider,
# which runs it as: agent.sh PROMPT OPTIONS_JSON CONTEXT_JSON.
# PROMPT is "task <id>: add <a> <b>"; prints
#   {"id":"<id>","answer":<a+b>,"text":"The sum of <a> and <b> is <a+b>"}
# The same work as agent-plain.sh, which reads the prompt on stdin instead.
set -f
set -- $1
id=${2%:}
a=$4
b=$5
sum=$((a + b))
printf '{"id":"%s","answer":%d,"text":"The sum of %d and %d is %d"}\n' "$id" "$sum" "$a" "$b" "$sum"
