#!/bin/sh
# A tiny agent for the act end-to-end test, speaking evalgate/1: it reads the
# task line and answers. With E2E_AGENT_MODE=fixed it answers every task
# right; otherwise it gets store-credit wrong, so the gate fails, and with
# E2E_AGENT_MODE=all-broken refund-window too.
# It also looks for the token where an agent could: its own environment and
# that of every process above it (as root, /proc/<pid>/environ of any of
# them is readable), and writes "token" or "clean" to $E2E_OUT/agent-saw.
saw=clean
pid=$$
while [ "$pid" -gt 1 ] 2>/dev/null; do
	if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -q 'ghs_e2e_token'; then
		saw="token in the environment of $(cat "/proc/$pid/comm"): $(tr '\0' '\n' <"/proc/$pid/environ" | grep 'ghs_e2e_token' | cut -d= -f1 | tr '\n' ' ')"
	fi
	pid=$(awk '{print $4}' "/proc/$pid/stat" 2>/dev/null || echo 1)
	case "$(cat "/proc/$pid/comm" 2>/dev/null)" in act* | bash | Runner.*) break ;; esac
done
[ -n "${E2E_OUT:-}" ] && echo "$saw" >>"$E2E_OUT/agent-saw"
IFS= read -r task
case "$task" in
*'"taskId":"refund-window"'*)
	if [ "${E2E_AGENT_MODE:-}" = all-broken ]; then
		echo '{"type":"final","output":"Refunds are at our discretion."}'
	else
		echo '{"type":"final","output":"Refunds are accepted within 30 days of delivery."}'
	fi
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
