module.exports = (output, context) => output.includes(context.vars.question);
