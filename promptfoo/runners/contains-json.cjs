// promptfoo's contains-json, as a module for javascript.cjs (written by
// `evalgate import promptfoo`): the output passes when some "{" in it
// starts a JSON object, found as promptfoo finds one: from each "{", up
// to the "}" that balances it (or, at the end of the output, with the
// missing "}" added), parsed; a candidate that does not parse is skipped.
// promptfoo parses candidates as YAML, so it also takes objects JSON does
// not ({a: 1}, comments); this takes strict JSON. A module the importer
// writes for a schema calls withSchema(schema): one of the objects found
// must validate.
'use strict';

function extractJsonObjects(str) {
  const found = [];
  const maxJsonLength = 1e5;
  for (let i = 0; i < str.length; i++) {
    if (str[i] !== '{') continue;
    let open = 1;
    let close = 0;
    let j = i + 1;
    while (j < Math.min(i + maxJsonLength, str.length) && open > close) {
      if (str[j] === '{') open++;
      if (str[j] === '}') close++;
      j++;
      if (open === close || j === str.length || j === i + maxJsonLength) {
        try {
          let candidate = str.slice(i, j);
          if (open > close) candidate += '}'.repeat(open - close);
          const v = JSON.parse(candidate);
          if (typeof v === 'object' && v !== null) {
            found.push(v);
            i = j - 1;
            break;
          }
        } catch {
          if (open === close) break;
        }
      }
    }
  }
  return found;
}

// is reports whether v has the JSON Schema type; an integer is also a
// number.
function is(v, type) {
  switch (type) {
    case 'null': return v === null;
    case 'boolean': return typeof v === 'boolean';
    case 'string': return typeof v === 'string';
    case 'number': return typeof v === 'number' && Number.isFinite(v);
    case 'integer': return Number.isInteger(v);
    case 'array': return Array.isArray(v);
    case 'object': return typeof v === 'object' && v !== null && !Array.isArray(v);
  }
  return false;
}

function equal(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && equal(a[k], b[k]));
}

// valid checks v against a schema of the keywords the importer lets
// through (it lists a schema with any other as unsupported), with their
// JSON Schema draft-07 meaning, as promptfoo's validator gives it.
function valid(s, v) {
  if (s === true) return true;
  if (s === false) return false;
  if (s.type !== undefined && ![].concat(s.type).some((t) => is(v, t))) return false;
  if (s.enum !== undefined && !s.enum.some((x) => equal(x, v))) return false;
  if (s.const !== undefined && !equal(s.const, v)) return false;
  if (typeof v === 'number') {
    if (s.minimum !== undefined && !(v >= s.minimum)) return false;
    if (s.maximum !== undefined && !(v <= s.maximum)) return false;
    if (s.exclusiveMinimum !== undefined && !(v > s.exclusiveMinimum)) return false;
    if (s.exclusiveMaximum !== undefined && !(v < s.exclusiveMaximum)) return false;
  }
  if (typeof v === 'string') {
    const n = [...v].length;
    if (s.minLength !== undefined && n < s.minLength) return false;
    if (s.maxLength !== undefined && n > s.maxLength) return false;
    if (s.pattern !== undefined && !new RegExp(s.pattern, 'u').test(v)) return false;
  }
  if (Array.isArray(v)) {
    if (s.minItems !== undefined && v.length < s.minItems) return false;
    if (s.maxItems !== undefined && v.length > s.maxItems) return false;
    if (s.items !== undefined && !v.every((x) => valid(s.items, x))) return false;
  }
  if (is(v, 'object')) {
    const props = s.properties || {};
    if (s.required !== undefined && !s.required.every((k) => Object.prototype.hasOwnProperty.call(v, k))) return false;
    for (const k of Object.keys(v)) {
      if (Object.prototype.hasOwnProperty.call(props, k)) {
        if (!valid(props[k], v[k])) return false;
      } else if (s.additionalProperties !== undefined && !valid(s.additionalProperties, v[k])) {
        return false;
      }
    }
  }
  return true;
}

// containsJson passes when the output holds a JSON object; with a schema,
// one that validates.
function containsJson(schema) {
  return function (output) {
    const found = extractJsonObjects(String(output));
    if (schema === undefined) return found.length > 0;
    return found.some((v) => valid(schema, v));
  };
}

module.exports = containsJson();
module.exports.withSchema = containsJson;
module.exports.extractJsonObjects = extractJsonObjects;
module.exports.valid = valid;
module.exports.equal = equal;
