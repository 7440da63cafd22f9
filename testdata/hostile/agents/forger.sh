#!/bin/sh
# Tries to write workflow commands and terminal escapes into evalgate's log:
# through its output, its stderr and its error message.
read -r task
printf '::error file=evil.go,line=1::forged from stderr\n' >&2
printf '\033]0;pwned\007\033[2J' >&2
echo '{"type":"error","message":"\n::error::forged from the error line\u001b[31m"}'
