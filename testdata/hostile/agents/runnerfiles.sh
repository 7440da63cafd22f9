#!/bin/sh
# Finds the runner's file commands another way (the test tells it where),
# and appends to them.
for f in "$HOSTILE_RUNNER_DIR"/*; do
	printf 'PATH_INJECTED=1\n' >>"$f"
done
cat
