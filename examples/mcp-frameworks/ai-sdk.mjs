// The order-status agent on the Vercel AI SDK: its MCP client hands the
// trial's tools to the model, which looks the order up, and the customer's
// memory resource goes into the system prompt. The model is any
// OpenAI-compatible one, at OPENAI_BASE_URL with OPENAI_API_KEY.
import { createMCPClient } from "@ai-sdk/mcp";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, stepCountIs } from "ai";

const input = await new Response(process.stdin).text();

const mcp = await createMCPClient({ transport: { type: "http", url: process.env.EVALGATE_MCP_URL } });
const { resources } = await mcp.listResources();
const memory = await mcp.readResource({ uri: resources[0].uri });

const provider = createOpenAICompatible({
  name: "openai",
  baseURL: process.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1",
  apiKey: process.env.OPENAI_API_KEY,
});
const { text } = await generateText({
  model: provider(process.env.MODEL ?? "gpt-4.1-mini"),
  tools: await mcp.tools(),
  stopWhen: stepCountIs(5),
  system: instructions(memory.contents[0].text),
  prompt: input,
});
await mcp.close();
process.stdout.write(text);

function instructions(customer) {
  return `Look the order and the order it replaced up, one call each, the order first.
Answer with JSON only: {"status": the order's status, "replaced": "found", or the error looking it up gave, "tier": the customer's tier}.
The customer: ${customer}`;
}
