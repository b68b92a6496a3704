// What a logon's synchronous writes cost with STATE_DIR (docs/reliability.md, "Losses found": the
// creation file and the new session are written before the ack): writeFileAtomicSync of a file the
// size of a creation record, N times into a temporary directory. Prints a JSON line and a table.
//
//   npx tsc -p tsconfig.json && npx tsx bench/logon-write.ts [--writes 200] [--bytes 4096]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { writeFileAtomicSync } from '../src/main/base/atomic-file.js';
import { jsonLine, machine, table } from './lib/report.js';

const { values } = parseArgs({ options: { writes: { type: 'string', default: '200' }, bytes: { type: 'string', default: '4096' } } });
const writes = Number(values.writes);
const text = JSON.stringify({ pad: 'x'.repeat(Math.max(0, Number(values.bytes) - 12)) });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ods-logon-write-'));
const ms: number[] = [];
try {
  for (let i = 0; i < writes; i++) {
    const t = process.hrtime.bigint();
    writeFileAtomicSync(path.join(dir, `created-${i % 16}.json`), text);
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
ms.sort((a, b) => a - b);
const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))];
const row = { bench: 'logon-write', writes, bytes: text.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: ms[ms.length - 1], load1: os.loadavg()[0] };
jsonLine({ ...row, machine: machine() });
console.log(table([row], ['writes', 'bytes', 'p50Ms', 'p99Ms', 'maxMs', 'load1']));
