// Runs promptfoo JavaScript assertions as an evalgate program check
// (written by `evalgate import promptfoo`). Usage:
//   node javascript.cjs --inline K [THRESHOLD]   the K-th inline assertion of the row
//   node javascript.cjs FILE [THRESHOLD]         a module exporting the function
// Inline code comes with each request, in the row's code.javascript[K], so
// one process serves every test of a suite; it is called as promptfoo does:
// new Function('output', 'context', body), where a one-line body is an
// expression. A module exports the function (module.exports, or its
// default). Each request is a JSON line
// {"input","output","trace","vars"}; vars holds the test's vars under
// "vars". A boolean passes or fails; a number is a score that passes when
// it reaches THRESHOLD (else when it is above 0); a grading object
// {pass, score, reason} is taken as it is; anything else fails.
'use strict';
const path = require('path');
const readline = require('readline');

const inline = process.argv[2] === '--inline' ? Number(process.argv[3]) : -1;
const thresholdArg = process.argv[inline >= 0 ? 4 : 3];
const threshold = thresholdArg === undefined ? undefined : Number(thresholdArg);
let moduleFn;
if (inline < 0) {
  const m = require(path.resolve(process.argv[2]));
  moduleFn = typeof m === 'function' ? m : m.default;
}
const compiled = new Map();

// fnFor returns the assertion a request asks for.
function fnFor(row) {
  if (inline < 0) return moduleFn;
  const code = String(((row.code || {}).javascript || [])[inline] || '').trim();
  let fn = compiled.get(code);
  if (!fn) {
    const body = code.includes('\n') || /^return\b/.test(code) ? code : 'return ' + code;
    fn = new Function('output', 'context', body);
    if (compiled.size >= 1000) compiled.clear();
    compiled.set(code, fn);
  }
  return fn;
}

function answer(r) {
  if (typeof r === 'boolean') return { pass: r };
  if (typeof r === 'number' && Number.isFinite(r)) {
    const score = Math.min(1, Math.max(0, r));
    return { pass: threshold === undefined ? r > 0 : r >= threshold, score };
  }
  if (r && typeof r === 'object' && 'pass' in r) {
    const out = { pass: Boolean(r.pass) };
    if (typeof r.score === 'number' && Number.isFinite(r.score)) out.score = Math.min(1, Math.max(0, r.score));
    if (typeof r.reason === 'string') out.reason = r.reason.slice(0, 500);
    return out;
  }
  return { pass: false, reason: 'the assertion returned ' + (typeof r) + ', not a boolean, a number or a grading result' };
}

let queue = Promise.resolve();
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  queue = queue.then(async () => {
    let r;
    try {
      const req = JSON.parse(line);
      const row = req.vars || {};
      const vars = row.vars || {};
      const output = typeof req.output === 'string' ? req.output : JSON.stringify(req.output);
      const context = { vars, prompt: row.input, test: { vars }, logProbs: undefined };
      r = answer(await fnFor(row)(output, context));
    } catch (e) {
      r = { pass: false, reason: 'the assertion threw: ' + String(e && e.message || e).slice(0, 300) };
    }
    process.stdout.write(JSON.stringify(r) + '\n');
  });
});
