// A real local HTTP server standing in for start.gg's GraphQL API (docs/brackets.md): every request
// is parsed and validated with the `graphql` package against the stand-in's schema
// (startgg-schema.ts) and executed against it (the answer is shaped by the schema), with the
// organiser's token checked (Bearer) and start.gg's rate limit (80 requests per 60 s per token:
// 429 above). Reports (reportBracketSet, updateBracketSet) change the held sets as start.gg does
// (gameData replaces the games; a winner completes the set; updateBracketSet cannot change the
// winner) and are recorded for assertions. `down(ms)` closes the listener for that long: requests
// are refused (ECONNREFUSED), then it listens on the same port again.
import http from 'node:http';
import { PlatformStandin } from './platform-standin.js';
import { buildSchema, graphql, parse, validate, type GraphQLError } from 'graphql';
import { STARTGG_STANDIN_SDL } from './startgg-schema.js';

export interface StandinEntrant { id: number; name: string; logo?: string; players: Array<{ gamerTag: string; riotId?: string }> }
export interface StandinGame { orderNum: number; winnerId: number | null; entrant1Score: number | null; entrant2Score: number | null; stageId: string | null }
export interface StandinSet {
  id: number; state: number; round: string; totalGames: number;
  entrants: [StandinEntrant | null, StandinEntrant | null];
  stream?: string; station?: number; winnerId?: number | null; games?: StandinGame[];
  /** The phase (bracket) it is in; none: the event's first phase. */
  phaseId?: number;
}
export interface StandinEvent { id: number; slug: string; name: string; sets: StandinSet[]; phases?: Array<{ id: number; name: string }> }
export interface Received { query: string; variables: Record<string, unknown>; errors: string[]; at: number }
export interface Mutation { name: 'reportBracketSet' | 'updateBracketSet'; args: Record<string, unknown>; at: number }

export const VALORANT_STAGES = ['Ascent', 'Bind', 'Haven', 'Split', 'Icebox', 'Breeze', 'Fracture', 'Pearl', 'Lotus', 'Sunset', 'Abyss'].map((name, i) => ({ id: String(100 + i), name }));

const schema = buildSchema(STARTGG_STANDIN_SDL);

export class StartggStandin extends PlatformStandin {
  readonly events = new Map<string, StandinEvent>();
  /** Every request, valid or not (errors: the validation's, empty when valid). */
  readonly received: Received[] = [];
  readonly mutations: Mutation[] = [];
  /** Requests refused for the rate limit (80 per 60 s). */
  rateLimited = 0;
  private readonly times: number[] = [];

  private constructor(readonly token: string) {
    super();
  }

  static async start(token: string): Promise<StartggStandin> {
    const s = new StartggStandin(token);
    await s.listen();
    return s;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/gql/alpha`;
  }

  /** The requests the schema refused (the test asserts none). */
  invalid(): Received[] {
    return this.received.filter((r) => r.errors.length > 0);
  }

  set(id: number): StandinSet {
    for (const e of this.events.values()) for (const s of e.sets) if (s.id === id) return s;
    throw new Error(`no set ${id}`);
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/gql/alpha') return answer(404, { message: 'Not found' });
    if (req.headers.authorization !== `Bearer ${this.token}`) return answer(401, { message: 'Invalid authentication token' });
    const now = Date.now();
    while (this.times.length && this.times[0] <= now - 60_000) this.times.shift();
    if (this.times.length >= 80) {
      this.rateLimited++;
      return answer(429, { success: false, message: 'Rate limit exceeded - api-token' });
    }
    this.times.push(now);
    let body: { query?: unknown; variables?: unknown };
    try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body; } catch { return answer(400, { errors: [{ message: 'Body is not JSON' }] }); }
    const query = typeof body.query === 'string' ? body.query : '';
    const variables = (body.variables ?? {}) as Record<string, unknown>;
    const received: Received = { query, variables, errors: [], at: now };
    this.received.push(received);
    let errors: readonly GraphQLError[];
    try { errors = validate(schema, parse(query)); } catch (err) { errors = [err as GraphQLError]; }
    if (errors.length > 0) {
      received.errors = errors.map((e) => e.message);
      return answer(400, { errors: errors.map((e) => ({ message: e.message })) });
    }
    const result = await graphql({ schema, source: query, variableValues: variables, rootValue: this.root() });
    if (result.errors?.length) received.errors = result.errors.map((e) => e.message);
    answer(200, result);
  }

  /** The resolvers: the held events, shaped as the schema says. */
  private root(): Record<string, unknown> {
    type SetsArgs = { page?: number; perPage?: number; filters?: { state?: number[] | null } };
    const setsOf = (all: StandinSet[]) => (args: SetsArgs) => {
        const states = args.filters?.state;
        const open = all.filter((s) => !states || states.includes(s.state));
        const perPage = args.perPage ?? 25;
        const page = args.page ?? 1;
        return {
          pageInfo: { total: open.length, totalPages: Math.ceil(open.length / perPage), page, perPage },
          nodes: open.slice((page - 1) * perPage, page * perPage).map(setOf),
        };
    };
    const eventOf = (e: StandinEvent) => ({
      id: e.id, name: e.name, slug: e.slug,
      videogame: { id: 34227, name: 'VALORANT', stages: VALORANT_STAGES },
      sets: setsOf(e.sets),
    });
    const setOf = (s: StandinSet) => ({
      id: s.id, state: s.state, fullRoundText: s.round, totalGames: s.totalGames, setGamesType: 1, winnerId: s.winnerId ?? null,
      stream: s.stream ? { id: 1, streamName: s.stream, streamSource: 'TWITCH' } : null,
      station: s.station ? { id: s.station, number: s.station, identifier: s.station } : null,
      slots: () => s.entrants.map((e, i) => ({ id: `${s.id}-${i}`, slotIndex: i, entrant: e && entrantOf(e) })),
      games: (s.games ?? []).map((g) => ({ id: `${s.id}-g${g.orderNum}`, ...g, stage: VALORANT_STAGES.find((st) => st.id === g.stageId) ?? null })),
    });
    const entrantOf = (e: StandinEntrant) => ({
      id: e.id, name: e.name,
      team: { __typename: 'EventTeam', id: e.id, name: e.name, images: () => (e.logo ? [{ id: 1, type: 'profile', url: e.logo }] : []) },
      participants: e.players.map((p, i) => ({ id: e.id * 100 + i, gamerTag: p.gamerTag, requiredConnections: p.riotId ? [{ id: i, type: 'RIOT', externalUsername: p.riotId }] : [] })),
    });
    const report = (name: Mutation['name']) => (args: { setId: string; winnerId?: string | null; gameData?: Array<Record<string, unknown>> | null }) => {
      this.mutations.push({ name, args: JSON.parse(JSON.stringify(args)) as Record<string, unknown>, at: Date.now() });
      const s = this.set(Number(args.setId));
      if (name === 'updateBracketSet' && s.state !== 3) throw new Error('The set is not reported yet (use reportBracketSet)');
      if (name === 'updateBracketSet' && args.winnerId && Number(args.winnerId) !== s.winnerId) throw new Error('The winner cannot change here (reset the set)');
      if (args.gameData) {
        s.games = args.gameData.map((g) => ({
          orderNum: g.gameNum as number, winnerId: g.winnerId ? Number(g.winnerId) : null,
          entrant1Score: (g.entrant1Score as number | undefined) ?? null, entrant2Score: (g.entrant2Score as number | undefined) ?? null, stageId: (g.stageId as string | undefined) ?? null,
        }));
      }
      if (args.winnerId) { s.winnerId = Number(args.winnerId); s.state = 3; } else if (s.state !== 3) s.state = 2;
      return name === 'reportBracketSet' ? [setOf(s)] : setOf(s);
    };
    return {
      event: ({ slug, id }: { slug?: string; id?: string }) => {
        const e = [...this.events.values()].find((x) => x.slug === slug || String(x.id) === id);
        return e ? eventOf(e) : null;
      },
      phase: ({ id }: { id?: string }) => {
        for (const e of this.events.values()) {
          const phase = (e.phases ?? []).find((p) => String(p.id) === id);
          if (phase) return { id: phase.id, name: phase.name, event: eventOf(e), sets: setsOf(e.sets.filter((s) => (s.phaseId ?? e.phases![0].id) === phase.id)) };
        }
        return null;
      },
      reportBracketSet: report('reportBracketSet'),
      updateBracketSet: report('updateBracketSet'),
    };
  }
}
