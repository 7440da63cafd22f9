// Runs one promptfoo JavaScript assertion as an evalgate program check
// (written by `evalgate import promptfoo`). Usage:
//   node javascript.cjs CODE_FILE [THRESHOLD]
// CODE_FILE ending in .inline.js holds the assertion's inline code, called
// as promptfoo does: new Function('output', 'context', body), where a
// one-line body is an expression. Any other file is a module exporting the
// function (module.exports, or its default). Each request is a JSON line
// {"input","output","trace","vars"}; vars holds the test's vars under
// "vars". A boolean passes or fails; a number is a score that passes when
// it reaches THRESHOLD (else when it is above 0); a grading object
// {pass, score, reason} is taken as it is; anything else fails.
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');

const file = process.argv[2];
const threshold = process.argv[3] === undefined ? undefined : Number(process.argv[3]);
let fn;
if (file.endsWith('.inline.js')) {
  const code = fs.readFileSync(file, 'utf8').trim();
  const body = code.includes('\n') || /^\s*return\b/.test(code) ? code : 'return ' + code;
  fn = new Function('output', 'context', body);
} else {
  const m = require(path.resolve(file));
  fn = typeof m === 'function' ? m : m.default;
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
      r = answer(await fn(output, context));
    } catch (e) {
      r = { pass: false, reason: 'the assertion threw: ' + String(e && e.message || e).slice(0, 300) };
    }
    process.stdout.write(JSON.stringify(r) + '\n');
  });
});
