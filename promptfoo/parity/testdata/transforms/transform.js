// Keeps the first name of the parsed output.
module.exports = (output, context) => JSON.parse(output).name.split(' ')[0];
module.exports.shout = (output) => String(output).toUpperCase() + '!';
