// The InputLog contract (matches/input-log.ts) against the STATE_DIR adapter (matches/adapters/state-dir/input-log.ts),
// a restart being a new instance on the same directory; and what only the files have: owner-only
// permissions, segments deleted once every match in them is covered or gone (the previous run's too,
// once its resumed matches are covered), and a torn last record skipped.
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { StateDirInputLog } from '../../../src/main/matches/adapters/state-dir/input-log.js';
import type { InputLog } from '../../../src/main/matches/input-log.js';
import { describeInputLogContract } from './input-log.contract.js';
import { tempDir } from '../../helpers/service.js';

const silent = pino({ level: 'silent' });
const dirOf = new WeakMap<InputLog, string>();
const open = (dir: string, segmentMs = 10_000) => {
  const log = new StateDirInputLog(dir, silent, { segmentMs });
  dirOf.set(log, dir);
  return log;
};

describeInputLogContract('STATE_DIR', {
  make: () => open(path.join(tempDir(), 'inputs')),
  reopen: (first) => open(dirOf.get(first)!),
  concurrent: false,
});

const obs = (n: number) => ({ n, now: 1_700_000_000_000 + n, kind: 'obs' as const, raw: `{"n":${n}}` });
const segments = (dir: string) => fs.readdirSync(dir).filter((f) => f.endsWith('.log')).sort();

describe('InputLog on STATE_DIR: the files', () => {
  it('writes owner-only segments, and deletes each once every match in it is covered or dropped', async () => {
    const dir = path.join(tempDir(), 'inputs');
    const log = open(dir, 50);
    try {
      log.append('SEGA01', 1, obs(1));
      log.append('SEGB01', 2, obs(1));
      log.flush();
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
      const first = segments(dir)[0];
      expect(fs.statSync(path.join(dir, first)).mode & 0o777).toBe(0o600);
      await expect.poll(() => segments(dir).length, { timeout: 10_000 }).toBe(2); // rotated: the next segment is begun
      log.append('SEGA01', 1, obs(2)); // in the second segment
      log.flush();
      log.covered('SEGA01', 1, 1);
      // SEGB01 is in the first segment and not covered: it stays through the next rotation's sweep.
      await expect.poll(() => fs.existsSync(path.join(dir, 'inputs-3.log')), { timeout: 10_000 }).toBe(true);
      expect(segments(dir)).toContain(first);
      log.drop('SEGB01', 2);
      await expect.poll(() => segments(dir).includes(first), { timeout: 10_000 }).toBe(false);
      expect(await log.since('SEGA01', 1, 1, 0)).toEqual([obs(2)]);
    } finally {
      log.close();
    }
  });

  it('a restart reads the previous run\'s segments; a torn last record (a power cut) ends its segment', async () => {
    const dir = path.join(tempDir(), 'inputs');
    const log = open(dir);
    log.append('TORN01', 3, obs(1));
    log.append('TORN01', 3, obs(2));
    log.close();
    const [file] = segments(dir);
    fs.appendFileSync(path.join(dir, file), '{"c":"TORN01","e":3,"n":3,"t":1,"l":50}\n{"half');
    const next = open(dir);
    try {
      expect(await next.since('TORN01', 4, 3, 0)).toEqual([obs(1), obs(2)]);
    } finally {
      next.close();
    }
  });
});
