// An order-status agent whose model and tools live inside it, instrumented
// with OpenTelemetry the way the GenAI semantic conventions describe: an
// invoke_agent span around the task, a chat span around each model call
// (model and token usage), an execute_tool span around each tool call.
// It prints nothing but its answer: evalgate (agent.otel: true) reads what
// it did from its spans. The SDK sends them where the environment says
// (OTEL_EXPORTER_OTLP_ENDPOINT), and the task's TRACEPARENT makes them
// children of evalgate's trial.
//
//   ORDER_AGENT_EXPORTER=json   send OTLP/JSON instead of protobuf
//   ORDER_AGENT_SKIP_TOOLS=1    a broken tool loop: answer without the tool
import { readFileSync } from "node:fs";
import { context, propagation, trace, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { OTLPTraceExporter as JSONExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { complete } from "./model.mjs";

const sdk = new NodeSDK({
  serviceName: "order-status-agent",
  traceExporter: process.env.ORDER_AGENT_EXPORTER === "json" ? new JSONExporter() : new ProtoExporter(),
  textMapPropagator: new W3CTraceContextPropagator(),
});
sdk.start();
const tracer = trace.getTracer("order-status-agent");

// The agent's one tool.
const orders = { "A-17": { status: "shipped", shippedOn: "2026-11-20" } };
function lookupOrder({ orderId }) {
  const order = orders[orderId];
  if (!order) throw Object.assign(new Error("no such order"), { type: "OrderNotFound" });
  return { orderId, ...order };
}

// chat calls the model inside a chat span.
function chat(messages) {
  return tracer.startActiveSpan(`chat mock-orders-1`, { kind: SpanKind.CLIENT }, (span) => {
    span.setAttributes({ "gen_ai.operation.name": "chat", "gen_ai.request.model": "mock-orders-1" });
    // Content, as instrumentations record it when asked to: evalgate never keeps it.
    span.setAttribute("gen_ai.input.messages", JSON.stringify(messages));
    const reply = complete(messages);
    span.setAttributes({
      "gen_ai.response.model": reply.model,
      "gen_ai.usage.input_tokens": reply.usage.inputTokens,
      "gen_ai.usage.output_tokens": reply.usage.outputTokens,
    });
    span.end();
    return reply;
  });
}

// runTool runs a tool call inside an execute_tool span.
function runTool(call) {
  return tracer.startActiveSpan(`execute_tool ${call.name}`, (span) => {
    span.setAttributes({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": call.name });
    span.setAttribute("gen_ai.tool.call.arguments", JSON.stringify(call.arguments));
    span.addEvent("tool.called");
    try {
      return lookupOrder(call.arguments);
    } catch (err) {
      span.addEvent("tool.failed");
      span.setAttribute("error.type", err.type);
      span.setStatus({ code: SpanStatusCode.ERROR });
      return { orderId: call.arguments.orderId, error: err.message };
    } finally {
      span.end();
    }
  });
}

async function answer(question) {
  return tracer.startActiveSpan("invoke_agent order-status", async (span) => {
    span.setAttributes({ "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "order-status" });
    const messages = [{ role: "user", content: question }];
    let reply = chat(messages);
    for (let turn = 0; reply.toolCall && turn < 4; turn++) {
      if (process.env.ORDER_AGENT_SKIP_TOOLS === "1") {
        reply = { content: "Your order is on its way." };
        break;
      }
      const result = runTool(reply.toolCall);
      if (result.error) span.addEvent("error.handled");
      messages.push({ role: "assistant", toolCall: reply.toolCall }, { role: "tool", content: JSON.stringify(result) });
      reply = chat(messages);
    }
    span.addEvent("task.completed");
    span.end();
    return reply.content;
  });
}

const parent = propagation.extract(context.active(), { traceparent: process.env.TRACEPARENT ?? "" });
const question = readFileSync(0, "utf8");
const text = await context.with(parent, () => answer(question));
process.stdout.write(text + "\n");
await sdk.shutdown(); // sends the spans before the process ends
