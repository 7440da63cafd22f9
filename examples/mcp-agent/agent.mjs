// An order-status agent that reaches its tools over the Model Context
// Protocol, written against the official TypeScript SDK and nothing of
// evalgate's: it reads an order id on stdin, asks the "crm:lookup" tool
// about it and about the order it replaced, reads the customer's memory
// resource, and prints its answer as JSON on stdout.
//
// Under `evalgate run` with agent.mcp: true, EVALGATE_MCP_URL names the
// trial's MCP server (streamable HTTP). With --stdio the agent launches
// `evalgate mcp stdio` instead, the way a stdio-only client would.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const input = JSON.parse(await new Response(process.stdin).text());

const transport = process.argv.includes("--stdio")
  ? new StdioClientTransport({
      command: process.env.EVALGATE_BIN || "evalgate",
      args: ["mcp", "stdio"],
      // The SDK passes a launched server only a few variables by default;
      // the bridge needs the trial's URL.
      env: { ...process.env },
      stderr: "inherit",
    })
  : new StreamableHTTPClientTransport(new URL(process.env.EVALGATE_MCP_URL));

const client = new Client({ name: "order-status-agent", version: "1.0.0" });
await client.connect(transport);

// Tool names a client sees may differ from the suite's: MCP serves
// "crm:lookup" as "crm_lookup", a name MCP accepts.
const { tools } = await client.listTools();
const lookup = tools.find((t) => t.name.startsWith("crm")).name;

const order = await client.callTool({ name: lookup, arguments: { orderId: input.orderId } });
const replaced = await client.callTool({ name: lookup, arguments: { orderId: input.replaces } });

const { resources } = await client.listResources();
const memory = await client.readResource({ uri: resources[0].uri });
const customer = JSON.parse(memory.contents[0].text);

const answer = {
  status: order.isError ? "unknown" : order.structuredContent.status,
  replaced: replaced.isError ? replaced.content[0].text : "found",
  tier: customer.tier,
};
await client.close();
process.stdout.write(JSON.stringify(answer));
