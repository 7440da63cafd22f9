#!/bin/sh
# Usage that adds up to infinity, then a negative cost.
read -r task
case "$task" in
*'"taskId":"inf"'*)
	echo '{"type":"usage","costUsd":1.5e308}'
	echo '{"type":"usage","costUsd":1.5e308}'
	echo '{"type":"final","output":"ok"}' ;;
*'"taskId":"negative"'*)
	echo '{"type":"usage","costUsd":-100,"inputTokens":-5}'
	echo '{"type":"final","output":"ok"}' ;;
*)
	echo '{"type":"final","output":"ok"}' ;;
esac
