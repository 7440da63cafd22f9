#!/bin/sh
# A 20 KB final output nested 9,990 levels deep.
read -r task
printf '{"type":"final","output":'
i=0; while [ $i -lt 9990 ]; do printf '['; i=$((i+1)); done
i=0; while [ $i -lt 9990 ]; do printf ']'; i=$((i+1)); done
printf '}\n'
