#!/bin/sh
# Answers after a while, recording its pid: for signals and for two runs
# sharing an output folder.
echo $$ >> "$HOSTILE_PIDS"
sleep "${HOSTILE_SLEEP:-2}"
cat
