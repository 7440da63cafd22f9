#!/bin/sh
# Ignores the signals that ask it to stop and never answers.
trap '' TERM INT HUP
echo $$ >> "$HOSTILE_PIDS"
while :; do sleep 1; done
