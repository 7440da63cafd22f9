#!/bin/sh
# Leaves a daemon behind that left its process group and holds stdout,
# writes the daemon's pid where the test can find it, and answers at once.
setsid sh -c 'echo $$ >> "$HOSTILE_PIDS"; exec sleep 3600' &
echo ok
