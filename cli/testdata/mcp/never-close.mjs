// Preloaded into an example agent (node --import), it makes the agent's
// MCP client never close, as an agent that forgets to close it: the agent
// ends with its client open. NEVER_CLOSE names the client: the official
// SDK's, the OpenAI Agents SDK's or LangChain's.
const examples = new URL("../../../examples/", import.meta.url);
const clients = {
  sdk: ["mcp-agent/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js", "Client"],
  "openai-agents": ["mcp-frameworks/node_modules/@openai/agents/dist/index.mjs", "MCPServerStreamableHttp"],
  langchain: ["mcp-frameworks/node_modules/@langchain/mcp-adapters/dist/index.js", "MultiServerMCPClient"],
};
const [path, name] = clients[process.env.NEVER_CLOSE];
const module = await import(new URL(path, examples));
module[name].prototype.close = async () => {};
