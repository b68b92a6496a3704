// The InputLog contract (src/main/matches/input-log.ts): every adapter must pass it. The port has no
// awaitable write: a test waits for what it wrote by polling `since` (at the writer's own epoch,
// which changes nothing), and shows that something did NOT land, or was not deleted, with a later
// marker sent by the same instance (an instance's writes land in the order it made them).
import { afterEach, describe, expect, it } from 'vitest';
import type { InputLog, LoggedInput } from '../../../src/main/matches/input-log.js';
import { pollUntil } from '../../helpers/waits.js';

export interface InputLogHarness {
  /** An instance over a new, empty store. */
  make(): InputLog | Promise<InputLog>;
  /**
   * Another instance over `first`'s store: another node, or the process after a restart (when not
   * `concurrent`, `first` was closed before: that flushed what it buffered).
   */
  reopen(first: InputLog): InputLog | Promise<InputLog>;
  /** Whether two instances work on one store at once (Redis: two nodes; files: one process at a time). */
  concurrent: boolean;
}

let matches = 0;
const freshMatch = () => `IL${++matches}${Date.now().toString(36).toUpperCase()}`;
const obs = (n: number, raw = `{"obs":${n}}`): LoggedInput => ({ n, now: 1_700_000_000_000 + n, kind: 'obs', raw });
const aux = (n: number, raw = `{"aux":${n}}`): LoggedInput => ({ n, now: 1_700_000_000_000 + n, kind: 'aux', matchId: 'm-1', playerId: `p-${n}`, raw });
const numbers = (inputs: LoggedInput[]) => inputs.map((i) => i.n);

/** Polls `since` until its answer has `count` inputs, and resolves with it. */
function landed(log: InputLog, code: string, epoch: number, fromEpoch: number, after: number, count: number): Promise<LoggedInput[]> {
  return pollUntil(async () => {
    const inputs = await log.since(code, epoch, fromEpoch, after);
    return inputs.length >= count && inputs;
  }, `${count} inputs of ${code} in the log`, 15_000);
}

/** Resolves once everything `log` wrote before it has landed: a marker input of a match of its own. */
async function settled(log: InputLog, epoch: number): Promise<void> {
  const marker = freshMatch();
  log.append(marker, epoch, obs(1, '{"marker":true}'));
  log.flush();
  await landed(log, marker, epoch, epoch, 0, 1);
}

export function describeInputLogContract(name: string, harness: InputLogHarness): void {
  describe(`InputLog contract: ${name}`, () => {
    const open = new Set<InputLog>();
    const close = (log: InputLog) => { if (open.delete(log)) log.close(); };
    afterEach(() => { for (const log of open) close(log); });
    const make = async () => { const log = await harness.make(); open.add(log); return log; };
    const reopen = async (first: InputLog) => {
      if (!harness.concurrent) close(first);
      const next = await harness.reopen(first);
      open.add(next);
      return next;
    };

    it('keeps a match\'s inputs as given, in order: kind, time, raw (20 kB, unicode, newlines), match and player ids', async () => {
      const log = await make();
      const code = freshMatch();
      const inputs = [
        obs(1),
        aux(2),
        obs(3, JSON.stringify({ big: 'x'.repeat(20_000) })),
        aux(4, '{"name":"Äsa 日本語 🎯","note":"line one\nline two\r\nthree\ttab \\" quote"}'),
        obs(5, '\n'),
      ];
      for (const input of inputs.slice(0, 3)) log.append(code, 7, input);
      log.flush();
      for (const input of inputs.slice(3)) log.append(code, 7, input);
      log.flush();
      expect(await landed(log, code, 7, 7, 0, 5)).toEqual(inputs);
    });

    it('another instance (a restart, another node) reads what was flushed; close flushes what is buffered', async () => {
      const log = await make();
      const code = freshMatch();
      log.append(code, 3, obs(1));
      log.append(code, 3, aux(2));
      log.flush();
      log.append(code, 3, obs(3)); // buffered only: close writes it
      close(log);
      const next = await reopen(log);
      expect(await landed(next, code, 4, 3, 0, 3)).toEqual([obs(1), aux(2), obs(3)]);
    });

    it('since answers the inputs numbered above `after`, of epochs from `fromEpoch` on', async () => {
      const log = await make();
      const code = freshMatch();
      log.append(code, 2, obs(1));
      log.append(code, 4, obs(2));
      log.append(code, 4, obs(3));
      log.flush();
      expect(numbers(await landed(log, code, 4, 2, 0, 3))).toEqual([1, 2, 3]);
      expect(numbers(await log.since(code, 6, 4, 0))).toEqual([2, 3]); // the owner of epoch 6 adopts from a snapshot of epoch 4
      log.append(code, 6, obs(4));
      log.append(code, 6, aux(5));
      log.flush();
      expect(await landed(log, code, 6, 4, 0, 4)).toEqual([obs(2), obs(3), obs(4), aux(5)]);
      expect(numbers(await log.since(code, 6, 4, 2))).toEqual([3, 4, 5]);
      expect(numbers(await log.since(code, 6, 6, 0))).toEqual([4, 5]);
      expect(numbers(await log.since(code, 6, 6, 4))).toEqual([5]);
      expect(numbers(await log.since(code, 6, 4, 5))).toEqual([]);
      expect(numbers(await log.since(code, 6, 7, 0))).toEqual([]);
      expect(await log.since(freshMatch(), 6, 0, 0)).toEqual([]); // a match with no log
    });

    it('covered: the inputs a stored snapshot holds go (those of earlier epochs too), the rest stays', async () => {
      const log = await make();
      const code = freshMatch();
      log.append(code, 2, obs(1));
      log.append(code, 2, obs(2));
      for (let n = 3; n <= 6; n++) log.append(code, 3, obs(n));
      log.flush();
      await landed(log, code, 3, 2, 0, 6);
      log.covered(code, 3, 4);
      await expect.poll(async () => numbers(await log.since(code, 3, 0, 0))).toEqual([5, 6]);
      log.covered(code, 3, 6);
      await expect.poll(async () => numbers(await log.since(code, 3, 0, 0))).toEqual([]);
      log.append(code, 3, obs(7)); // the owner goes on after its log was emptied
      log.flush();
      expect(await landed(log, code, 3, 3, 6, 1)).toEqual([obs(7)]);
    });

    it('fenced: after since at epoch 5, appends of epoch 4 are refused and never read (even once the log was trimmed empty)', async () => {
      const log = await make();
      const code = freshMatch();
      log.append(code, 4, obs(1));
      log.flush();
      await landed(log, code, 4, 4, 0, 1);
      expect(await log.since(code, 5, 4, 0)).toEqual([obs(1)]);
      log.append(code, 4, obs(2, '"deposed"'));
      log.flush();
      log.append(code, 5, obs(2, '"owner"'));
      log.flush();
      expect(await landed(log, code, 5, 4, 0, 2)).toEqual([obs(1), obs(2, '"owner"')]);
      log.covered(code, 5, 2);
      await expect.poll(async () => numbers(await log.since(code, 5, 4, 0))).toEqual([]);
      log.append(code, 4, obs(3, '"deposed"'));
      log.flush();
      await settled(log, 5);
      expect(await log.since(code, 5, 4, 0)).toEqual([]);
    });

    if (harness.concurrent) {
      it('fenced across nodes: once its successor read the log, the deposed owner\'s late appends are refused, its trims and drops change nothing', async () => {
        const deposed = await make();
        const code = freshMatch();
        deposed.append(code, 4, obs(1));
        deposed.append(code, 4, obs(2));
        deposed.flush();
        const owner = await reopen(deposed);
        expect(await landed(owner, code, 4, 4, 0, 2)).toEqual([obs(1), obs(2)]);
        expect(await owner.since(code, 5, 4, 1)).toEqual([obs(2)]); // the adoption: snapshot of epoch 4 at input 1
        deposed.append(code, 4, obs(3, '"late"'));
        deposed.flush();
        await settled(deposed, 4);
        owner.append(code, 5, obs(3, '"owner"'));
        owner.flush();
        expect(await landed(owner, code, 5, 4, 1, 2)).toEqual([obs(2), obs(3, '"owner"')]);
        // The deposed owner stores a snapshot (at input 2) and trims: not the log its successor holds,
        // which may not have read those inputs yet (it fenced the log before it loaded the snapshot).
        deposed.covered(code, 4, 2);
        deposed.drop(code, 4); // the deposed owner lets the match go: not its successor's log
        await settled(deposed, 4);
        expect(numbers(await owner.since(code, 5, 4, 0))).toEqual([1, 2, 3]);
      });
    }

    it('drop: a lower epoch than the log\'s latest deletes nothing; the owner\'s epoch deletes the log', async () => {
      const log = await make();
      const code = freshMatch();
      log.append(code, 8, obs(1));
      log.flush();
      await landed(log, code, 8, 8, 0, 1);
      expect(await log.since(code, 9, 8, 0)).toEqual([obs(1)]);
      log.append(code, 9, obs(2));
      log.flush();
      log.drop(code, 8);
      await settled(log, 9);
      expect(numbers(await log.since(code, 9, 8, 0))).toEqual([1, 2]);
      log.append(code, 9, obs(3)); // buffered when the match goes: never written
      log.drop(code, 9);
      log.flush();
      await settled(log, 9);
      expect(await log.since(code, 9, 0, 0)).toEqual([]);
    });

    it('two matches\' inputs do not mix: reads, trims and drops are per match', async () => {
      const log = await make();
      const [a, b] = [freshMatch(), freshMatch()];
      for (let n = 1; n <= 4; n++) {
        log.append(a, 2, obs(n, `"a${n}"`));
        log.append(b, 2, aux(n, `"b${n}"`));
      }
      log.flush();
      expect((await landed(log, a, 2, 2, 0, 4)).map((i) => i.raw)).toEqual(['"a1"', '"a2"', '"a3"', '"a4"']);
      expect((await landed(log, b, 2, 2, 0, 4)).map((i) => i.raw)).toEqual(['"b1"', '"b2"', '"b3"', '"b4"']);
      log.covered(a, 2, 3);
      await expect.poll(async () => numbers(await log.since(a, 2, 0, 0))).toEqual([4]);
      expect(numbers(await log.since(b, 2, 0, 0))).toEqual([1, 2, 3, 4]);
      log.drop(b, 2);
      await expect.poll(async () => numbers(await log.since(b, 2, 0, 0))).toEqual([]);
      expect(numbers(await log.since(a, 2, 0, 0))).toEqual([4]);
    });
  });
}
