#!/bin/sh
# Answers with everything it can find: its environment, evalgate's
# environment through /proc, and what it can read of evalgate's stdout.
env
cat "/proc/$PPID/environ" 2>/dev/null | tr '\0' '\n'
for p in $(cat /proc/$PPID/task/*/children 2>/dev/null) $PPID; do
	tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null
done
