#!/bin/sh
# Leaves a daemon behind, double-forked and with an empty environment (so
# nothing marks it as the agent's), that sends its MCP endpoint the headers
# of a request announcing 1,000 body bytes, then 10 of them, and waits.
# Once the request has had time to reach the server, the agent records
# both pids and answers, or with HOSTILE_HOLD=wait hangs for SIGINT.
sent="$HOSTILE_PIDS.sent"
(setsid env -i /usr/bin/python3 -c '
import os, socket, sys, time
url, sent = sys.argv[1:3]
host, _, path = url[len("http://"):].partition("/")
addr, _, port = host.rpartition(":")
s = socket.create_connection((addr, int(port)))
s.sendall(("POST /%s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
           "Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n"
           "{\"jsonrpc\"" % (path, host)).encode())
with open(sent, "w") as f:
    f.write("%d\n" % os.getpid())
time.sleep(3600)
' "$EVALGATE_MCP_URL" "$sent" </dev/null >/dev/null 2>&1 &)
while [ ! -s "$sent" ]; do sleep 0.1; done
sleep 1
cat "$sent" >> "$HOSTILE_PIDS"
echo $$ >> "$HOSTILE_PIDS"
if [ "$HOSTILE_HOLD" = wait ]; then
  sleep 3600
fi
echo ok
