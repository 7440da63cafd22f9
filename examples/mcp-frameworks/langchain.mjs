// The order-status agent on LangChain.js: the MCP adapters turn the
// trial's tools into LangChain tools for a createAgent agent, the
// customer's memory resource goes into its system prompt. The model is any
// OpenAI-compatible one, at OPENAI_BASE_URL with OPENAI_API_KEY.
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent } from "langchain";

const input = await new Response(process.stdin).text();

const client = new MultiServerMCPClient({
  mcpServers: { evalgate: { transport: "http", url: process.env.EVALGATE_MCP_URL } },
});
const { evalgate: resources } = await client.listResources("evalgate");
const [memory] = await client.readResource("evalgate", resources[0].uri);

const agent = createAgent({
  // Chat Completions, which OpenAI-compatible servers speak ("openai:<model>" would use the Responses API).
  model: new ChatOpenAI({ model: process.env.MODEL ?? "gpt-4.1-mini" }),
  tools: await client.getTools(),
  systemPrompt: instructions(memory.text),
});
const { messages } = await agent.invoke({ messages: [{ role: "user", content: input }] });
await client.close();
process.stdout.write(messages.at(-1).content);

function instructions(customer) {
  return `Look the order and the order it replaced up, one call each, the order first.
Answer with JSON only: {"status": the order's status, "replaced": "found", or the error looking it up gave, "tier": the customer's tier}.
The customer: ${customer}`;
}
