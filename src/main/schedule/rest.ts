// The schedule's admin routes (README, "A day's schedule"; docs/fixtures.md), registered with the
// other admin routes (rest/admin.ts: the same token, the same 404 without ADMIN_TOKEN). Reads take
// Bearer or Basic (the dashboard page reads with the browser's Basic credentials); changes Bearer only.
//
//   GET  /admin/fixtures                              { fixtures: [fixture + status, wins] } (today's first: by planned start)
//   POST /admin/fixtures                              an upload, JSON or CSV (Content-Type text/csv): 201 { added, fixtures }
//   GET  /admin/fixtures/:groupCode                   one fixture
//   PUT  /admin/fixtures/:groupCode                   changes it (a fixture as uploaded; results and the live map kept)
//   POST /admin/fixtures/:groupCode/delete            deletes it
//   POST /admin/fixtures/:groupCode/results/:map      corrects map n's result (1-based; n = played + 1 adds one): { "scores": [a, b] }
//   POST /admin/fixtures/:groupCode/reopen            a finished series takes one more map
import type { FixtureKeeper } from './keeper.js';
import { FIXTURES_FINISHED_RETENTION_MS, FIXTURES_MAX_BODY_BYTES, FIXTURES_MAX_STORED } from './limits.js';
import { csvField, parseCsvUpload } from './csv.js';
import { buildFixtures, checkSize, parseJsonUpload, UploadError } from './parse.js';
import { decided, status, wins } from './series.js';
import type { Fixture } from './fixture-store.js';
import type { MatchDirectory } from '../matches/index.js';
import { sendJson as json, type AdminRouteContext } from '../http/admin-context.js';
import type { Handler, Reply, Request, Router } from '../http/router.js';

export interface FixtureRouteDeps {
  keeper: FixtureKeeper;
  directory: MatchDirectory;
}

export interface FixtureRouteContext extends AdminRouteContext {
  /** Bearer or Basic: the token id, or null after answering 401. */
  authorizeRead(req: Request, reply: Reply): string | null;
}

/** A fixture as the routes show it: with its status and the series score. */
export const shown = (f: Fixture) => ({ ...f, status: status(f), wins: wins(f) });

const jsonPath = (path: string) => `field ${path || '(the fixture)'}`;

/**
 * Every route's store error (Redis did not answer) is a 503 { error }: never "not found", "deleted"
 * or an empty schedule (a change may or may not have been made; the operator tries again).
 */
function storeGuarded(router: Router, log: FixtureRouteContext['log']): Router {
  const guard = (h: Handler): Handler => async (req, reply) => {
    try {
      await h(req, reply);
    } catch (err) {
      log.warn({ path: req.path, error: (err as Error).message }, 'schedule store did not answer');
      reply.error(503, 'The schedule store did not answer; try again (a change may or may not have been made)');
    }
  };
  return {
    get: (p, h, o) => router.get(p, guard(h), o), put: (p, h, o) => router.put(p, guard(h), o),
    post: (p, h, o) => router.post(p, guard(h), o), finish: () => router.finish(),
  };
}

export function registerFixtures(outer: Router, deps: FixtureRouteDeps, ctx: FixtureRouteContext): void {
  const router = storeGuarded(outer, ctx.log);
  const { log, client } = ctx;
  const { keeper } = deps;
  const store = keeper.store;
  const withBody = { ...ctx.options, headers: [...(ctx.options.headers ?? []), 'content-type'], body: true };
  const refuse = (reply: Reply, tokenId: string, action: string, err: UploadError, groupCode?: string) => {
    log.info({ tokenId, action, groupCode, status: err.status, reason: err.message }, 'admin action refused');
    reply.error(err.status, err.message);
  };
  const find = async (req: Request, reply: Reply): Promise<string | null> => {
    const code = ctx.decodeParam(req.params[0]);
    if (code === null || !(await store.get(code))) {
      reply.error(404, 'Fixture not found');
      return null;
    }
    return code;
  };

  router.get('/admin/fixtures', async (req, reply) => {
    if (ctx.authorizeRead(req, reply) === null) return;
    const all = await store.list();
    all.sort((a, b) => (a.startsAt ?? Infinity) - (b.startsAt ?? Infinity) || a.groupCode.localeCompare(b.groupCode));
    json(reply, 200, { fixtures: all.map(shown) });
  }, ctx.options);

  router.post('/admin/fixtures', async (req, reply) => {
    const tokenId = ctx.authorize(req, reply);
    if (tokenId === null) return;
    const text = req.body.toString('utf8');
    const csv = /^text\/csv\b/i.test(req.headers['content-type'] ?? '');
    let fixtures: Fixture[];
    try {
      checkSize(text);
      const taken = (code: string) => deps.directory.get(code) !== undefined || keeper.scheduled(code);
      if (csv) {
        const { inputs, rows } = parseCsvUpload(text);
        fixtures = buildFixtures(inputs, (i) => `row ${rows[i]}`, csvField, taken, Date.now());
      } else {
        fixtures = buildFixtures(parseJsonUpload(text), (i) => `fixture ${i + 1}`, jsonPath, taken, Date.now());
      }
    } catch (err) {
      if (!(err instanceof UploadError)) throw err;
      return refuse(reply, tokenId, 'fixtures_upload', err);
    }
    await purgeFinished(keeper);
    const added = await store.add(fixtures, FIXTURES_MAX_STORED);
    if (!added.ok) {
      const err = added.reason === 'exists'
        ? new UploadError(`Group code ${added.groupCode} is scheduled already (delete or change that fixture); nothing was added`, 409)
        : new UploadError(`The schedule holds at most ${added.max} fixtures; nothing was added`);
      return refuse(reply, tokenId, 'fixtures_upload', err);
    }
    for (const f of fixtures) keeper.remember(f.groupCode, f);
    log.info({ tokenId, action: 'fixtures_upload', format: csv ? 'csv' : 'json', added: fixtures.length, groupCodes: fixtures.map((f) => f.groupCode), client: client(req) }, 'admin action: fixtures added');
    json(reply, 201, { added: fixtures.length, fixtures: fixtures.map(shown) });
  }, { ...withBody, maxBodyBytes: FIXTURES_MAX_BODY_BYTES });

  router.get('/admin/fixtures/:groupCode', async (req, reply) => {
    if (ctx.authorizeRead(req, reply) === null) return;
    const code = ctx.decodeParam(req.params[0]);
    const f = code === null ? undefined : await store.get(code);
    if (!f) return reply.error(404, 'Fixture not found');
    json(reply, 200, shown(f));
  }, ctx.options);

  router.put('/admin/fixtures/:groupCode', async (req, reply) => {
    const tokenId = ctx.authorize(req, reply);
    if (tokenId === null) return;
    const code = await find(req, reply);
    if (code === null) return;
    let next: Fixture;
    try {
      const input = parseJsonUpload(`[${req.body.toString('utf8') || 'null'}]`)[0] as Record<string, unknown> | null;
      if (input === null || typeof input !== 'object') throw new UploadError('The body must be one fixture (JSON)');
      [next] = buildFixtures([{ ...input, groupCode: code }], () => 'the fixture', jsonPath, () => false, Date.now());
    } catch (err) {
      if (!(err instanceof UploadError)) throw err;
      return refuse(reply, tokenId, 'fixture_change', err, code);
    }
    const f = await keeper.run(code, () => store.update(code, (cur) => ({ ...next, results: cur.results.slice(0, next.bestOf), live: cur.live, reopened: cur.reopened, createdAt: cur.createdAt }))) as Fixture | undefined;
    keeper.remember(code, f);
    if (!f) return reply.error(404, 'Fixture not found');
    log.info({ tokenId, action: 'fixture_change', groupCode: code, client: client(req) }, 'admin action: fixture changed');
    json(reply, 200, shown(f));
  }, withBody);

  router.post('/admin/fixtures/:groupCode/delete', async (req, reply) => {
    const tokenId = ctx.authorize(req, reply);
    if (tokenId === null) return;
    const code = await find(req, reply);
    if (code === null) return;
    await keeper.run(code, () => store.update(code, () => null));
    keeper.remember(code, undefined);
    log.info({ tokenId, action: 'fixture_delete', groupCode: code, client: client(req) }, 'admin action: fixture deleted');
    json(reply, 200, { groupCode: code, deleted: true });
  }, ctx.options);

  router.post('/admin/fixtures/:groupCode/results/:map', async (req, reply) => {
    const tokenId = ctx.authorize(req, reply);
    if (tokenId === null) return;
    const code = await find(req, reply);
    if (code === null) return;
    const n = Number(req.params[1]);
    let scores: unknown;
    try {
      scores = (JSON.parse(req.body.toString('utf8') || 'null') as { scores?: unknown } | null)?.scores;
    } catch {
      scores = undefined;
    }
    const valid = Array.isArray(scores) && scores.length === 2 && scores.every((s) => Number.isInteger(s) && s >= 0 && s <= 100) && scores[0] !== scores[1];
    if (!valid) return refuse(reply, tokenId, 'fixture_result', new UploadError('The body must be { "scores": [a, b] }: whole numbers 0–100, the fixture\'s team 1 first, not a draw'), code);
    const [a, b] = scores as [number, number];
    const out = { problem: '' };
    const f = await keeper.run(code, () => store.update(code, (cur) => {
      const max = cur.live ? cur.results.length : cur.results.length + 1;
      if (!Number.isInteger(n) || n < 1 || n > Math.min(max, cur.bestOf)) {
        out.problem = `Map ${req.params[1]}: results exist for maps 1–${cur.results.length}${cur.live ? ' (a map is being played)' : `; map ${cur.results.length + 1} may be added`}`;
        return undefined;
      }
      const results = [...cur.results];
      results[n - 1] = { map: cur.results[n - 1]?.map ?? cur.maps[n - 1]?.name ?? `Map ${n}`, scores: [a, b], winner: a > b ? 0 : 1, correctedBy: tokenId };
      if (decided({ results: results.slice(0, n - 1), bestOf: cur.bestOf })) {
        out.problem = `Map ${n}: the series was decided before it`;
        return undefined;
      }
      return { ...cur, results: results.slice(0, decidedAt(results, cur.bestOf)), updatedAt: Date.now() };
    })) as Fixture | undefined;
    if (out.problem) return refuse(reply, tokenId, 'fixture_result', new UploadError(out.problem), code);
    keeper.remember(code, f);
    if (!f) return reply.error(404, 'Fixture not found');
    log.info({ tokenId, action: 'fixture_result', groupCode: code, map: n, scores: [a, b], series: wins(f), client: client(req) }, 'admin action: map result corrected');
    json(reply, 200, shown(f));
  }, withBody);

  router.post('/admin/fixtures/:groupCode/reopen', async (req, reply) => {
    const tokenId = ctx.authorize(req, reply);
    if (tokenId === null) return;
    const code = await find(req, reply);
    if (code === null) return;
    const f = await keeper.run(code, () => store.update(code, (cur) => ({ ...cur, reopened: true, updatedAt: Date.now() }))) as Fixture | undefined;
    keeper.remember(code, f);
    if (!f) return reply.error(404, 'Fixture not found');
    log.info({ tokenId, action: 'fixture_reopen', groupCode: code, client: client(req) }, 'admin action: series reopened');
    json(reply, 200, shown(f));
  }, ctx.options);
}

/** How many results stand: none after the one that decided the series (a correction can decide it earlier). */
function decidedAt(results: Fixture['results'], bestOf: Fixture['bestOf']): number {
  for (let i = 1; i <= results.length; i++) if (decided({ results: results.slice(0, i), bestOf })) return i;
  return results.length;
}

/** Finished series older than FIXTURES_FINISHED_RETENTION_MS are removed (before an upload: room for the new day). */
async function purgeFinished(keeper: FixtureKeeper): Promise<void> {
  const cutoff = Date.now() - FIXTURES_FINISHED_RETENTION_MS;
  for (const f of await keeper.store.list()) {
    if (status(f) !== 'finished' || f.updatedAt > cutoff) continue;
    await keeper.run(f.groupCode, () => keeper.store.update(f.groupCode, (cur) => (status(cur) === 'finished' && cur.updatedAt <= cutoff ? null : undefined)));
    keeper.remember(f.groupCode, undefined);
  }
}
