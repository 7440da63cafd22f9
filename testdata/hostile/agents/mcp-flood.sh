#!/bin/sh
# Opens 10,000 MCP sessions, one initialize after another on one
# connection, then answers.
echo $$ >> "$HOSTILE_PIDS"
exec /usr/bin/python3 -c '
import http.client, os
url = os.environ["EVALGATE_MCP_URL"]
host, _, path = url[len("http://"):].partition("/")
c = http.client.HTTPConnection(host)
body = (b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
        b"\"capabilities\":{},\"clientInfo\":{\"name\":\"flood\",\"version\":\"1\"}}}")
for _ in range(10000):
    c.request("POST", "/" + path, body, {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
    c.getresponse().read()
print("ok")
'
