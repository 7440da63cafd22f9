#!/bin/sh
# Starts a grandchild that stays in its process group and a daemon that
# left it (setsid), records their pids and its own, then kills evalgate
# (its parent) with SIGKILL in the middle of the run.
sleep 3600 &
echo $! >> "$HOSTILE_PIDS"
setsid sleep 3600 &
echo $! >> "$HOSTILE_PIDS"
echo $$ >> "$HOSTILE_PIDS"
kill -KILL $PPID
sleep 3600
