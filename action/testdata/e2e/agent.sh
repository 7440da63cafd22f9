#!/bin/sh
# A tiny agent for the act end-to-end test, speaking evalgate/1: it reads the
# task line and answers. With E2E_AGENT_MODE=fixed it answers every task
# right; otherwise it gets store-credit wrong, so the gate fails.
IFS= read -r task
case "$task" in
*'"taskId":"refund-window"'*)
	echo '{"type":"final","output":"Refunds are accepted within 30 days of delivery."}'
	;;
*'"taskId":"store-credit"'*)
	if [ "${E2E_AGENT_MODE:-}" = fixed ]; then
		echo '{"type":"final","output":"Yes, we can issue store credit instead."}'
	else
		echo '{"type":"final","output":"Please contact support."}'
	fi
	;;
*)
	echo '{"type":"error","message":"unknown task"}'
	;;
esac
