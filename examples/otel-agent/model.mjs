// The agent's model: an offline stand-in for a chat model, so the example
// runs with no network and no API key. It answers as a tool-calling model
// does: asked about an order, it first calls lookup_order, then words the
// tool's result. Its token counts are what a tokenizer of about four
// characters a token would report.

export const MODEL = "mock-orders-1";

const tokens = (text) => Math.ceil(text.length / 4);

// complete answers a conversation: {toolCall} or {content}, with usage.
export function complete(messages) {
  const prompt = JSON.stringify(messages);
  const last = messages[messages.length - 1];
  let reply;
  if (last.role === "tool") {
    const result = JSON.parse(last.content);
    reply = result.error
      ? { content: `I could not find order ${result.orderId}: ${result.error}.` }
      : { content: `Order ${result.orderId} has ${result.status}; it left the warehouse on ${result.shippedOn}.` };
  } else {
    const order = /\b([A-Z]-\d+)\b/.exec(last.content);
    reply = order
      ? { toolCall: { name: "lookup_order", arguments: { orderId: order[1] } } }
      : { content: "Which order do you mean? Give me its number, such as A-17." };
  }
  const completion = JSON.stringify(reply);
  return { ...reply, model: MODEL, usage: { inputTokens: tokens(prompt), outputTokens: tokens(completion) } };
}
