// Runs promptfoo JavaScript assertions as an evalgate program check
// (written by `evalgate import promptfoo`). Usage:
//   node javascript.cjs [--config JSON] --inline K [THRESHOLD]   the K-th inline assertion of the row
//   node javascript.cjs [--config JSON] [--fn NAME] FILE [THRESHOLD]
//                                                a module exporting the function, or NAME
//   node javascript.cjs --assert K               the row's K-th assertion, decided here
// --config is the assertion's config, context.config as promptfoo gives it.
// Inline code comes with each request, in the row's code.javascript[K], so
// one process serves every test of a suite; it is called as promptfoo does:
// new Function('output', 'context', 'process', body), where a one-line
// body is an expression. A module exports the function (module.exports, or
// its default). Each request is a JSON line {"input","output","trace",
// "vars"}; vars holds the row, the test's vars under "vars". A boolean
// passes or fails; a number is a score that passes when it reaches
// THRESHOLD (else when it is above 0); a grading object {pass, score,
// reason} is taken as it is; anything else fails.
//
// --assert decides the row's asserts[K] itself, as promptfoo does, on the
// output the test's transform (the row's transform) and the assertion's
// own transform make of it: equals, contains and its -any/-all and i-
// forms, starts-with, regex (JavaScript's), is-json and contains-json
// (with a schema), javascript, levenshtein, word-count and assert-set. A
// transform is inline code, called as new Function('output', 'context',
// 'process', code) (a one-line code is an expression), or {file, fn}, a
// module's function; one that throws or returns nothing fails the check.
'use strict';
const path = require('path');
const readline = require('readline');

// What an assertion prints goes to stderr: stdout is the program check's
// answers.
const out = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);

let argv = process.argv.slice(2);
let config, fnName;
while (argv[0] === '--config' || argv[0] === '--fn') {
  if (argv[0] === '--config') config = JSON.parse(argv[1]);
  else fnName = argv[1];
  argv = argv.slice(2);
}
const mode = argv[0];
const inline = mode === '--inline' ? Number(argv[1]) : -1;
const assertAt = mode === '--assert' ? Number(argv[1]) : -1;
const thresholdArg = argv[inline >= 0 || assertAt >= 0 ? 2 : 1];
const threshold = thresholdArg === undefined ? undefined : Number(thresholdArg);
let moduleFn;
const compiled = new Map();

// findLastStatementSemicolon and functionBody are promptfoo's: a one-line
// body is an expression, unless it declares (const, let, var) first.
function findLastStatementSemicolon(code) {
  let single = false, double = false, template = false, last = -1;
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    let escaped = false;
    for (let j = i - 1; j >= 0 && code[j] === '\\'; j--) escaped = !escaped;
    if (!escaped) {
      if (c === "'" && !double && !template) single = !single;
      else if (c === '"' && !single && !template) double = !double;
      else if (c === '`' && !single && !double) template = !template;
    }
    if (c === ';' && !single && !double && !template) last = i;
  }
  return last;
}

function functionBody(code) {
  if (code.includes('\n')) return code;
  const trimmed = code.trim().replace(/;+\s*$/, '');
  if (/^(const|let|var)\s/.test(trimmed)) {
    const last = findLastStatementSemicolon(trimmed);
    if (last !== -1) {
      const expression = trimmed.slice(last + 1).trim();
      if (expression) return trimmed.slice(0, last + 1) + ' return ' + expression;
    }
    return trimmed;
  }
  return 'return ' + trimmed;
}

// compile makes an assertion's function (kind "assert") or a transform's
// (promptfoo prepends return to a one-line transform as it is).
function compile(code, kind) {
  const key = kind + '\0' + code;
  let fn = compiled.get(key);
  if (!fn) {
    const body = kind === 'assert' ? functionBody(code) : code.includes('\n') ? code : 'return ' + code;
    fn = new Function('output', 'context', 'process', body);
    if (compiled.size >= 1000) compiled.clear();
    compiled.set(key, fn);
  }
  return fn;
}

// fnFor returns the assertion a request asks for.
function fnFor(row) {
  if (inline < 0) return moduleFn || (moduleFn = load(argv[0], fnName));
  const code = String(((row.code || {}).javascript || [])[inline] || '').trimEnd();
  return compile(code, 'assert');
}

function answer(r, th) {
  if (typeof r === 'boolean') return { pass: r };
  if (typeof r === 'number' && Number.isFinite(r)) {
    const score = Math.min(1, Math.max(0, r));
    return { pass: th === undefined ? r > 0 : r >= th, score };
  }
  if (r && typeof r === 'object' && 'pass' in r) {
    const out = { pass: Boolean(r.pass) };
    if (typeof r.score === 'number' && Number.isFinite(r.score)) out.score = Math.min(1, Math.max(0, r.score));
    if (typeof r.reason === 'string') out.reason = r.reason.slice(0, 500);
    return out;
  }
  return { pass: false, reason: 'the assertion returned ' + (typeof r) + ', not a boolean, a number or a grading result' };
}

const modules = new Map();
function load(file, fn) {
  const key = file + '\0' + (fn || '');
  if (!modules.has(key)) {
    const m = require(path.resolve(file));
    let f = fn && typeof m[fn] === 'function' ? m[fn] : typeof m === 'function' ? m : m.default;
    if (typeof f !== 'function') throw new Error(file + ' exports no function' + (fn ? ' ' + fn : ''));
    modules.set(key, f);
  }
  return modules.get(key);
}

// transform runs a transform as promptfoo does; it fails on nothing.
async function transform(spec, output, context) {
  const fn = typeof spec === 'string' ? compile(spec, 'transform') : load(spec.file, spec.fn);
  let r;
  try {
    r = await fn(output, context, process);
  } catch (e) {
    throw new Error('the transform threw: ' + String(e && e.message || e).slice(0, 300));
  }
  if (r === null || r === undefined) throw new Error('the transform returned nothing');
  return r;
}

function text(v) { return typeof v === 'string' ? v : JSON.stringify(v); }
function list(v) {
  if (typeof v === 'string') return v.split(',').map((s) => s.trim());
  if (!Array.isArray(v)) throw new Error('expected a list of values');
  return v;
}

function levenshtein(a, b) {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const t = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = t;
    }
  }
  return prev[b.length];
}

// decide is one assertion's verdict on output, promptfoo's way.
async function decide(spec, output, context) {
  if (spec.transform) output = await transform(spec.transform, output, { vars: context.vars, prompt: { label: context.prompt } });
  const s = text(output);
  const v = spec.value;
  let r;
  switch (spec.type) {
    case 'equals':
      if (typeof v === 'object' && v !== null) {
        try { r = require('./contains-json.cjs').equal(v, JSON.parse(s)); } catch { r = false; }
      } else r = String(v) === s;
      break;
    case 'contains': r = s.includes(String(v)); break;
    case 'icontains': r = s.toLowerCase().includes(String(v).toLowerCase()); break;
    case 'starts-with': r = s.startsWith(String(v)); break;
    case 'contains-any': r = list(v).some((x) => s.includes(String(x))); break;
    case 'contains-all': r = list(v).every((x) => s.includes(String(x))); break;
    case 'icontains-any': r = list(v).some((x) => s.toLowerCase().includes(String(x).toLowerCase())); break;
    case 'icontains-all': r = list(v).every((x) => s.toLowerCase().includes(String(x).toLowerCase())); break;
    case 'regex': r = new RegExp(v).test(s); break;
    case 'is-json': {
      let parsed;
      try { parsed = JSON.parse(s); r = true; } catch { r = false; }
      if (r && spec.schema !== undefined) r = require('./contains-json.cjs').valid(spec.schema, parsed);
      break;
    }
    case 'contains-json': {
      const cj = require('./contains-json.cjs');
      r = spec.schema === undefined ? cj(s) : cj.withSchema(spec.schema)(s);
      break;
    }
    case 'levenshtein': r = levenshtein(s, String(v)) <= (spec.threshold === undefined ? 5 : spec.threshold); break;
    case 'word-count': {
      const n = s.trim() === '' ? 0 : s.trim().split(/\s+/).length;
      if (typeof v === 'object' && v !== null) r = (v.min === undefined || n >= v.min) && (v.max === undefined || n <= v.max);
      else r = n === Number(v);
      break;
    }
    case 'javascript': {
      const fn = spec.file ? load(spec.file, spec.fn) : compile(String(v).trimEnd(), 'assert');
      const ctx = spec.config === undefined ? context : { ...context, config: JSON.parse(JSON.stringify(spec.config)) };
      const got = answer(await fn(output, ctx, process), spec.threshold);
      return spec.inverse ? { pass: !got.pass } : got;
    }
    case 'assert-set': {
      let total = 0, passed = 0, all = true;
      for (const child of spec.assert) {
        const w = child.weight === undefined ? 1 : child.weight;
        let got;
        try { got = await decide(child, output, context); } catch (e) { got = { pass: false }; }
        total += w;
        if (got.pass) passed += w; else if (w !== 0) all = false;
      }
      const score = total > 0 ? passed / total : 0;
      r = spec.threshold === undefined ? all : score >= spec.threshold;
      break;
    }
    default:
      throw new Error('the assertion ' + spec.type + ' is not decided here');
  }
  return { pass: Boolean(r) !== Boolean(spec.inverse) };
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
      if (config !== undefined) context.config = JSON.parse(JSON.stringify(config));
      if (assertAt >= 0) {
        const spec = (row.asserts || [])[assertAt];
        if (!spec) throw new Error('the row has no assertion ' + assertAt);
        let out = output;
        if (row.transform) out = await transform(row.transform, out, { vars, prompt: { raw: typeof row.input === 'string' ? row.input : JSON.stringify(row.input) } });
        r = await decide(spec, out, context);
      } else {
        r = answer(await fnFor(row)(output, context, process), threshold);
      }
    } catch (e) {
      r = { pass: false, reason: 'the assertion threw: ' + String(e && e.message || e).slice(0, 300) };
    }
    out(JSON.stringify(r) + '\n');
  });
});
