module.exports = (output, context) => {
  const data = JSON.parse(output);
  const want = context.vars.words;
  if (data.words === want) {
    return { pass: true, score: 1, reason: `counted ${want} words` };
  }
  return { pass: false, score: 0, reason: `counted ${data.words}, wanted ${want}` };
};
