class Reverse {
  constructor(options) { this.prefix = (options && options.config && options.config.prefix) || ''; }
  id() { return 'reverse'; }
  async callApi(prompt) { return { output: this.prefix + prompt.split('').reverse().join('') }; }
}
module.exports = Reverse;
