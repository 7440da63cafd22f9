#!/bin/sh
# Answers after a while, recording its pid: for signals and for two runs
# sharing an output folder. HOSTILE_SLEEP is the while, in seconds, or
# "gate": until the file HOSTILE_GATE is there.
echo $$ >> "$HOSTILE_PIDS"
if [ "$HOSTILE_SLEEP" = gate ]; then
  while [ ! -e "$HOSTILE_GATE" ]; do sleep 0.1; done
else
  sleep "${HOSTILE_SLEEP:-2}"
fi
cat
