#!/bin/sh
# agent-plain.sh: the bench's deterministic agent for evalgate's plain driver.
# Reads one line "task <id>: add <a> <b>" on stdin and prints
#   {"id":"<id>","answer":<a+b>,"text":"The sum of <a> and <b> is <a+b>"}
# The same work as agent.sh, which takes the prompt in argv instead.
set -f
IFS= read -r prompt
set -- $prompt
id=${2%:}
a=$4
b=$5
sum=$((a + b))
printf '{"id":"%s","answer":%d,"text":"The sum of %d and %d is %d"}\n' "$id" "$sum" "$a" "$b" "$sum"
