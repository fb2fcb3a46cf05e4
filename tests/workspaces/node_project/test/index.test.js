"use strict";

const test = require("node:test");
const assert = require("node:assert");
const { countWords } = require("../src/index.js");

test("counts words", () => {
  assert.strictEqual(countWords("one two  three"), 3);
});

test("empty text has no words", () => {
  assert.strictEqual(countWords("   "), 0);
});
