#!/bin/sh
# A world's handler that writes $HOSTILE_PIDS.checks when its stdin
# closes, at the end of the agent's trial, as the trial's checks begin.
while read -r call; do
	echo '{"result":"ok"}'
done
echo $$ >> "$HOSTILE_PIDS.checks"
