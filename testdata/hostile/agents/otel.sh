#!/bin/sh
# Sends hostile OpenTelemetry requests to its trial's receiver, then
# answers "ok" (HOSTILE_OTEL says which):
#   flood  25,000 spans in five requests, over the trial's 10,000
#   big    a gzip body that inflates past 4 MiB, then one of 5 MiB
#   reuse  the endpoint of the task before, kept in a file: it must be 404
#   odd    token counts negative, fractional, NaN and infinite; content in
#          attributes named in odd case; forged workflow commands and
#          escapes in names; a parent chain 5,000 spans deep
echo $$ >> "$HOSTILE_PIDS"
exec /usr/bin/python3 -c '
import gzip, http.client, json, os, sys
mode = os.environ["HOSTILE_OTEL"]
url = os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"]
host, _, path = url[len("http://"):].partition("/")

def post(body, path="/" + path + "/v1/traces", headers=None):
    c = http.client.HTTPConnection(host, timeout=60)
    h = {"Content-Type": "application/json"}
    h.update(headers or {})
    try:
        c.request("POST", path, body, h)
        return c.getresponse().status
    except OSError:
        return 0

def span(i, parent=None, name=None, attrs=(), events=()):
    s = {"traceId": "%032x" % 1, "spanId": "%016x" % (i + 1), "name": name or "s%d" % i,
         "startTimeUnixNano": str(10**18 + i), "endTimeUnixNano": str(10**18 + i + 1000),
         "attributes": list(attrs), "events": [{"name": e} for e in events]}
    if parent is not None:
        s["parentSpanId"] = "%016x" % (parent + 1)
    return s

def request(spans):
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).encode()

secret = "SECRET-CONTENT-hostile-otel"
if mode == "flood":
    for r in range(5):
        post(request([span(r * 5000 + i) for i in range(5000)]))
elif mode == "big":
    post(gzip.compress(b" " * (5 << 20)), headers={"Content-Encoding": "gzip"})
    post(b" " * (5 << 20))
elif mode == "reuse":
    mine = "/" + path + "/v1/traces"
    if os.path.exists("otel-url"):
        if post(request([span(0)]), path=open("otel-url").read()) != 404:
            print("a trial endpoint answered after its trial"); sys.exit(0)
    open("otel-url", "w").write(mine)
elif mode == "odd":
    def num(k, v): return {"key": k, "value": {"doubleValue": v}}
    def text(k, v): return {"key": k, "value": {"stringValue": v}}
    chat = [text("gen_ai.operation.name", "chat"), text("gen_ai.request.model", "m")]
    spans = [
        span(0, name="chat m", attrs=chat + [num("gen_ai.usage.input_tokens", -5), num("gen_ai.usage.output_tokens", 1.5)]),
        span(1, name="chat m", attrs=chat + [num("gen_ai.usage.input_tokens", "NaN"), num("gen_ai.usage.output_tokens", "Infinity")]),
        span(2, name="\n::error::forged-by-a-span\x1b[31m", attrs=[text("GEN_AI.INPUT.MESSAGES", secret), text("Gen_Ai.Prompt.0.Content", secret),
             text("INPUT.VALUE", secret), text("gen_ai.tool.call.ARGUMENTS", secret)], events=["\n::error::forged-by-an-event"]),
    ]
    spans += [span(10 + i, parent=(10 + i - 1) if i else None) for i in range(5000)]
    post(request(spans))
print("ok")
'
