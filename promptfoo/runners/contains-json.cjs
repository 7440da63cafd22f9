// promptfoo's contains-json, as a module for javascript.cjs (written by
// `evalgate import promptfoo`): the output passes when some "{" in it
// starts a JSON object, found as promptfoo finds one: from each "{", up
// to the "}" that balances it (or, at the end of the output, with the
// missing "}" added), parsed; a candidate that does not parse is skipped.
// promptfoo parses candidates as YAML, so it also takes objects JSON does
// not ({a: 1}, comments); this takes strict JSON.
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

module.exports = function containsJson(output) {
  return extractJsonObjects(String(output)).length > 0;
};
module.exports.extractJsonObjects = extractJsonObjects;
