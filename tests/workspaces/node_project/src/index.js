"use strict";

/** Count the words of a text. */
function countWords(text) {
  const words = text.trim().split(/\s+/);
  return words[0] === "" ? 0 : words.length;
}

module.exports = { countWords };
