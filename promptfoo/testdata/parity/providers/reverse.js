class Reverse {
  id() { return 'reverse'; }
  async callApi(prompt) { return { output: prompt.split('').reverse().join('') }; }
}
module.exports = Reverse;
