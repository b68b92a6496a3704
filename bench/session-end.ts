// bench/session-end.ts — ending every match's sessions (what a shutdown without durable snapshots,
// or a day's matches ending, asks of the SessionStore: `end` per match, sessions/session-store.ts) in
// the memory adapter: M matches, each with one observer session and A auxiliary sessions, then
// every match ended in turn (its observers, then its auxiliaries). Prints the CPU it took, per tree
// (`--trees A,B`: each tree's built dist/, alternated, for the A/B in one sitting; issue 28 step 8).
//
//   npx tsx bench/session-end.ts [--matches 1500] [--aux 10] [--rounds 3] [--trees ../before,.]
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { opt } from './lib/args.js';
import { jsonLine, table } from './lib/report.js';

const M = Number(opt('matches', '1500'));
const A = Number(opt('aux', '10'));
const ROUNDS = Number(opt('rounds', '3'));
const TREES = opt('trees', '.').split(',').map((t) => path.resolve(t));

interface Store {
  put(s: Record<string, unknown>): void;
  endNow(which: { observersOf?: string; auxiliariesOf?: string }): unknown[];
}
const stores = await Promise.all(TREES.map(async (tree) => (await import(pathToFileURL(path.join(tree, 'dist/main/sessions/adapters/memory/session-store.js')).href)).MemorySessionStore as new (windowMs: number) => Store));

const rows: Record<string, unknown>[] = [];
for (let r = 0; r < ROUNDS; r++) {
  stores.forEach((Store, k) => {
    const store = new Store(60_000);
    for (let m = 0; m < M; m++) {
      store.put({ id: `o${m}`, role: 'observer', groupCode: `G${m}`, obsName: 'o', matchId: '', playerId: '', socketId: `s${m}` });
      for (let a = 0; a < A; a++) store.put({ id: `a${m}.${a}`, role: 'auxiliary', groupCode: '', obsName: '', matchId: `M${m}`, playerId: `P${a}`, socketId: `t${m}.${a}` });
    }
    const c0 = process.cpuUsage();
    let ended = 0;
    for (let m = 0; m < M; m++) ended += store.endNow({ observersOf: `G${m}`, auxiliariesOf: `M${m}` }).length;
    const c = process.cpuUsage(c0);
    if (ended !== M * (1 + A)) throw new Error(`ended ${ended} sessions, not ${M * (1 + A)}`);
    const row = { round: r + 1, tree: TREES[k], matches: M, sessions: M * (1 + A), endAllMs: +((c.user + c.system) / 1000).toFixed(1), usPerMatch: +((c.user + c.system) / M).toFixed(2) };
    jsonLine({ bench: 'session-end', ...row });
    rows.push(row);
  });
}
process.stdout.write('\n' + table(rows, ['round', 'tree', 'matches', 'sessions', 'endAllMs', 'usPerMatch']) + '\n');
