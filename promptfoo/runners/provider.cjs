// Runs a promptfoo JavaScript provider as an evalgate plain agent (written
// by `evalgate import promptfoo`). Usage:
//   node provider.cjs [--config JSON] PROVIDER_FILE
// The prompt comes on stdin (a chat prompt as its JSON). The file exports a
// provider class (constructed with {config}, the provider's config, or {}), a provider object, or a
// function; its callApi(prompt, context) is called as promptfoo calls it,
// and its "output" printed: a string as it is, anything else as JSON. An
// "error" it returns ends the task with exit status 1.
'use strict';
const path = require('path');

// What the provider prints goes to stderr: stdout is its output.
const out = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);

async function main() {
  let args = process.argv.slice(2);
  let config = {};
  if (args.length > 1 && args[0] === '--config') {
    config = JSON.parse(args[1]);
    args = args.slice(2);
  }
  let m = require(path.resolve(args[0]));
  if (m && m.default) m = m.default;
  let provider = m;
  if (typeof m === 'function' && m.prototype && typeof m.prototype.callApi === 'function') {
    provider = new m({ config });
  }
  const call = typeof provider === 'function' ? provider : provider.callApi.bind(provider);
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  const result = await call(Buffer.concat(chunks).toString('utf8'), { vars: {} });
  if (result && result.error) {
    process.stderr.write(String(result.error) + '\n');
    process.exit(1);
  }
  const output = result && typeof result === 'object' && 'output' in result ? result.output : result;
  out(typeof output === 'string' ? output : JSON.stringify(output));
}
main().catch((e) => {
  process.stderr.write(String(e && e.stack || e) + '\n');
  process.exit(1);
});
