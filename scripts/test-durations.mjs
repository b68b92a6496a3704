#!/usr/bin/env node
// Writes test/setup/durations.json, the measured wall time of each test file that takes 4 s or more,
// from a vitest JSON report (`npm test -- --reporter=default --reporter=json --outputFile=<report>`).
// test/setup/sequencer.ts starts the longest files first with it: vitest's own duration cache lives in
// node_modules and is empty on a fresh clone (CI), where files would start in the order they are found.
import fs from 'node:fs';
import path from 'node:path';

const report = process.argv[2];
if (!report) {
  console.error('usage: node scripts/test-durations.mjs <vitest JSON report>');
  process.exit(2);
}
const root = path.resolve(import.meta.dirname, '..');
const { testResults } = JSON.parse(fs.readFileSync(report, 'utf8'));
const rows = testResults
  .map((t) => [path.relative(root, t.name), Math.round((t.endTime - t.startTime) / 1000)])
  .filter(([, s]) => s >= 4)
  .sort((a, b) => b[1] - a[1]);
const out = path.join(root, 'test/setup/durations.json');
fs.writeFileSync(out, JSON.stringify(Object.fromEntries(rows), null, 1) + '\n');
console.log(`${out}: ${rows.length} files`);
