// The order-status agent on the OpenAI Agents SDK: the trial's MCP server
// is one of the agent's mcpServers, the customer's memory resource goes
// into its instructions. The model is any OpenAI-compatible one, at
// OPENAI_BASE_URL with OPENAI_API_KEY.
import { Agent, MCPServerStreamableHttp, run, setOpenAIAPI, setTracingDisabled } from "@openai/agents";

// Offline, or when the run's traces are not OpenAI's to keep: without
// this, the SDK sends them to OpenAI's tracing endpoint.
setTracingDisabled(true);
setOpenAIAPI("chat_completions"); // what OpenAI-compatible servers speak

const input = await new Response(process.stdin).text();

const server = new MCPServerStreamableHttp({ name: "evalgate", url: process.env.EVALGATE_MCP_URL });
await server.connect();
const { resources } = await server.listResources();
const memory = await server.readResource(resources[0].uri);

const agent = new Agent({
  name: "order-status",
  model: process.env.MODEL ?? "gpt-4.1-mini",
  instructions: instructions(memory.contents[0].text),
  mcpServers: [server],
});
const result = await run(agent, input);
await server.close();
process.stdout.write(result.finalOutput);

function instructions(customer) {
  return `Look the order and the order it replaced up, one call each, the order first.
Answer with JSON only: {"status": the order's status, "replaced": "found", or the error looking it up gave, "tier": the customer's tier}.
The customer: ${customer}`;
}
