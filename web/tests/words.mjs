// The browser's words formatter (web/dist/js/words.js) against the shared test vectors,
// which tests/unit/test_words_format.py holds the Python formatter to as well.
// Run: node web/tests/words.mjs [vectors.json]; prints "N passed, M failed".
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { render, parse, kindOf, TemplateError } from "../dist/js/words.js";

const here = dirname(fileURLToPath(import.meta.url));
const file = process.argv[2] || join(here, "..", "..", "tests", "fixtures", "words_vectors.json");
const data = JSON.parse(readFileSync(file, "utf8"));
let passed = 0, failed = 0;
const check = (ok, what) => { if (ok) passed++; else { failed++; console.log("FAIL", what); } };

for (const v of data.vectors) {
  let got;
  try { got = render(v.template, v.payload, data.tables); } catch (e) { got = `threw ${e}`; }
  check(got === v.expected, `${v.name}: ${JSON.stringify(got)} != ${JSON.stringify(v.expected)}`);
}
for (const t of data.errors) {
  let refused = false;
  try { parse(t); } catch (e) { refused = e instanceof TemplateError; }
  check(refused, `not refused: ${t}`);
}
for (const c of data.kinds) {
  const [kind, fields] = kindOf(c.type, c.payload);
  check(kind === c.kind && JSON.stringify(fields) === JSON.stringify(c.fields), `kind of ${c.type}: ${kind} ${JSON.stringify(fields)}`);
}
// Each game's own words, when a dump is given (tests/unit/test_words_web.py writes one):
// every template parses, and the rendered samples match the Python rendering.
if (data.samples) {
  for (const s of data.samples) {
    let got;
    try { got = render(s.template, s.payload, data.sampleTables[s.game]); } catch (e) { got = `threw ${e}`; }
    check(got === s.expected, `${s.game} ${s.kind}: ${JSON.stringify(got)} != ${JSON.stringify(s.expected)}`);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
