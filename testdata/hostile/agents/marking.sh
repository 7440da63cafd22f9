#!/bin/sh
# Task "slow": calls the tool whose handler marks the end of the trial,
# then answers a megabyte of lowercase letters. Task "signal": once the
# mark is there and a second has passed (the slow task's checks running),
# records its pid, which is when the test presses Ctrl-C, and waits.
read -r task
case "$task" in
*'"taskId":"signal"'*)
	while [ ! -e "$HOSTILE_PIDS.checks" ]; do sleep 0.05; done
	sleep 1
	echo $$ >> "$HOSTILE_PIDS"
	exec sleep 3600 ;;
esac
echo '{"type":"tool_call","id":"m","name":"mark","arguments":{}}'
read -r result
printf '{"type":"final","output":"'
head -c 1048576 /dev/zero | tr '\0' 'a'
printf '"}\n'
