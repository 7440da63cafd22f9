#!/bin/sh
# Calls a tool the suite does not declare, whose name holds a newline, a
# workflow command, an escape and markup: as an evalgate/1 tool_call line
# and over MCP. Then answers.
echo $$ >> "$HOSTILE_PIDS"
exec /usr/bin/python3 -c '
import http.client, json, os, sys
name = "x\n::error::forged\x1b[31m<script>"
sys.stdin.readline()
print(json.dumps({"type": "tool_call", "id": "c1", "name": name, "arguments": {}}), flush=True)
sys.stdin.readline()
url = os.environ["EVALGATE_MCP_URL"]
host, _, path = url[len("http://"):].partition("/")
c = http.client.HTTPConnection(host)
def rpc(msg, session=None):
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if session:
        headers["Mcp-Session-Id"] = session
        headers["Mcp-Protocol-Version"] = "2025-06-18"
    c.request("POST", "/" + path, json.dumps(msg), headers)
    r = c.getresponse()
    r.read()
    return r.getheader("Mcp-Session-Id")
session = rpc({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "u", "version": "1"}}})
rpc({"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
rpc({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": {}}}, session)
print(json.dumps({"type": "final", "output": "ok"}), flush=True)
'
