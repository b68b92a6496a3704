#!/usr/bin/env node
// Keeps only the uWebSockets.js binary the running Node loads, for the image's build stage
// (Dockerfile). uws-pack ships one binary per platform, architecture and Node ABI (24 files, about
// 139 MB); its loader (node_modules/uWebSockets.js/dist/uws.mjs) requires
// ./bin/uws_<process.platform>_<process.arch>_<process.versions.modules>.node and nothing else.
// Run by the build stage's Node, which is the runtime stage's Node (same base image, same platform:
// a linux/arm64 build runs an arm64 Node here and keeps the arm64 binary).
//
//   node scripts/prune-uws.mjs [node_modules/uWebSockets.js/dist/bin] [--target linux_arm64_127]
//
// --target: another platform_arch_ABI than this Node's (for the test). Exits 1, removing nothing,
// when the binary to keep is not there (an unsupported platform or Node: the image would not run).
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const t = args.indexOf('--target');
const target = t >= 0 ? args.splice(t, 2)[1] : `${process.platform}_${process.arch}_${process.versions.modules}`;
const dir = args[0] ?? 'node_modules/uWebSockets.js/dist/bin';
const keep = `uws_${target}.node`;

const files = fs.readdirSync(dir).filter((f) => /^uws_.+\.node$/.test(f));
if (!files.includes(keep)) {
  console.error(`prune-uws: ${keep} is not in ${dir} (uWebSockets.js has no binary for this platform and Node); nothing removed`);
  process.exit(1);
}
let kept = 0;
let removed = 0;
for (const f of files) {
  const p = path.join(dir, f);
  const size = fs.statSync(p).size;
  if (f === keep) { kept += size; continue; }
  fs.rmSync(p);
  removed += size;
}
const mb = (n) => (n / 1e6).toFixed(1) + ' MB';
console.log(`prune-uws: kept ${keep} (${mb(kept)}), removed ${files.length - 1} binaries (${mb(removed)})`);
