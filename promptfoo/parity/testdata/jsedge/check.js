module.exports = (output, context) => output.startsWith('hel');
