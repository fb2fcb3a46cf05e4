#!/usr/bin/env node
"use strict";

const { countWords } = require("../src/index.js");

console.log(countWords(process.argv.slice(2).join(" ")));
