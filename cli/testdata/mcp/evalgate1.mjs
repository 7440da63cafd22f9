// The example MCP agent's twin over evalgate/1: the same calls, in the
// same order, with the same answer, as tool_call lines. The interop test
// checks both give the same trace, checks and findings.
import readline from "node:readline";

const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const next = async () => JSON.parse((await lines.next()).value);
const send = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");

const task = await next();
const call = async (id, name, args) => {
  send({ type: "tool_call", id, name, arguments: args });
  return next();
};
const order = await call("1", "crm:lookup", { orderId: task.input.orderId });
const replaced = await call("2", "crm:lookup", { orderId: task.input.replaces });
const answer = {
  status: order.isError ? "unknown" : order.content.status,
  replaced: replaced.isError ? replaced.content : "found",
  tier: task.memory[0].tier,
};
send({ type: "final", output: JSON.stringify(answer) });
process.exit(0);
