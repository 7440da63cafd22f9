#!/bin/sh
# An evalgate/1 agent in an open conversation: asks how it can help, then
# repeats each message of the user back ("you said: ..."). Its final output
# shows whether the simulated user said anything.
echo $$ >> "$HOSTILE_PIDS"
read -r task
echo '{"type":"reply","output":"How can I help?"}'
while read -r line; do
  said=$(printf '%s' "$line" | sed 's/.*"content":"//; s/"}$//')
  echo "{\"type\":\"reply\",\"output\":\"you said: $said\"}"
done
