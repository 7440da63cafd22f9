// Passes when the reply names the country the customer asked about.
module.exports = (output, context) => {
  const country = context.vars.question.match(/to (\w+)\?/)[1];
  return {pass: output.includes(country), score: 1, reason: 'mentions ' + country};
};
