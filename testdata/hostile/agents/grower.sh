#!/bin/sh
# Calls the tool that copies the world into itself 40 times on task
# "calls"; answers at once on the others, whose gold calls do the same.
read -r task
case "$task" in
*'"taskId":"calls"'*)
	i=1
	while [ $i -le 40 ]; do
		echo '{"type":"tool_call","id":"c'$i'","name":"grow","arguments":{}}'
		read -r result
		i=$((i+1))
	done ;;
esac
echo '{"type":"final","output":"grown"}'
