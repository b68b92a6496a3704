// The feeds' tables of a match this process runs, made by its shard from the match's state (the
// `feed_tables` command, sent through routing: matches/routing.ts; the answer comes in the shard's output, matches/shard-output.ts). Why not the frame
// text, as GET /match reads it: a poll a second of a changing match found a new frame almost every
// time, and each cost the text's trip from the shard (which also started a hold: the text of every
// frame of the next 5 s crossed threads), its unescaping and a JSON.parse of ~15 kB, for the few
// members the tables copy (docs/benchmarks.md, "Events, webhooks and feeds at game pace"). The shard
// sends the tables instead: the scoreboard's (parsed here) and the players' JSON text (~4 kB), which is
// the players feed's JSON body as it is (parsed only when CSV or XML is asked for). A match of another node (REDIS_URL) is read as before.
import type { FeedTables } from '../../protocol/feed-tables.js';
import type { ShardOut } from '../../protocol/shard-messages.js';
import type { LocalRoutes, MatchRouting } from '../matches/index.js';

/** How long an answer may take (a shard answers within its cycle; one restarting does not answer). */
const WAIT_MS = 2000;

/** The players' rows stay JSON text (`playersJson`: the players feed's JSON body as is; parsed only for CSV or XML). */
export interface ShardTablesAnswer { frameNo: number; tables: Omit<FeedTables, 'players'>; playersJson: string }
type Resolve = (answer: ShardTablesAnswer | undefined) => void;

export class ShardFeedTables {
  private routing: Pick<MatchRouting, 'feedTables'> | undefined;
  /** Per group code: when its request went to the shard, and who waits for the answer (one request for all). */
  private readonly waiting = new Map<string, { askedAt: number; resolves: Resolve[] }>();

  constructor(private readonly routes: Pick<LocalRoutes, 'get'>) {}

  /** The way to the shards, once routing exists (the composition root: this is built before the pool, whose output reaches `take`). */
  setRouting(routing: Pick<MatchRouting, 'feedTables'>): void {
    this.routing = routing;
  }

  /** Whether a shard of this process runs the match. */
  runsHere(groupCode: string): boolean {
    return this.routes.get(groupCode) !== undefined;
  }

  /** The tables of the match's latest frame from its shard; undefined at once when no shard here runs it, or later when none answered in time. */
  ask(groupCode: string): Promise<ShardTablesAnswer | undefined> | undefined {
    const routing = this.routing;
    if (!routing || this.routes.get(groupCode) === undefined) return undefined;
    return new Promise((resolve) => {
      const now = Date.now();
      const found = this.waiting.get(groupCode);
      const fresh = !found || now - found.askedAt > WAIT_MS;
      const entry = fresh ? { askedAt: now, resolves: found?.resolves ?? [] } : found;
      this.waiting.set(groupCode, entry);
      const timer = setTimeout(() => {
        const i = entry.resolves.indexOf(done);
        if (i >= 0) entry.resolves.splice(i, 1);
        if (entry.resolves.length === 0 && this.waiting.get(groupCode) === entry) this.waiting.delete(groupCode);
        resolve(undefined);
      }, WAIT_MS);
      const done: Resolve = (answer) => { clearTimeout(timer); resolve(answer); };
      entry.resolves.push(done);
      // After the waiter is in: an inline shard (SHARD_WORKERS=0) may answer within send().
      if (fresh) routing.feedTables(groupCode);
    });
  }

  /** The shards' answers (ShardOut.feedTables). */
  readonly take = (answers: NonNullable<ShardOut['feedTables']>): void => {
    for (let i = 0; i < answers.codes.length; i++) {
      const entry = this.waiting.get(answers.codes[i]);
      if (!entry) continue;
      this.waiting.delete(answers.codes[i]);
      const answer: ShardTablesAnswer = { frameNo: answers.frameNos[i], tables: JSON.parse(answers.scoreboards[i]) as Omit<FeedTables, 'players'>, playersJson: answers.players[i] };
      for (const resolve of entry.resolves) resolve(answer);
    }
  };
}
