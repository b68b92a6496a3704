// Preview and team-info lifetimes (docs/interface.md 3.1, 3.2; docs/match-rules.md 14.3) with short TTLs,
// over real HTTP: expiry, replacement resets the timer, reads do not extend it, PREVIEW_MAX → 503
// and room again once the previews expired unread; team info from an observer's logon expires
// TEAM_INFO_TTL_MS after it was written. The stores' own rules (setFinal's expiry, the byte bound):
// their port contracts (test/main/<concern>/<port>.contract.ts, run by test/main/ports/ports-memory.test.ts); memory freed without
// reads: test/main/ports/memory-stores.test.ts.
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAll, observer } from '../../helpers/clients.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { sleep } from '../../helpers/waits.js';

const KEY = 'lifecycle-key-93b1';
// Long enough that every check lands well inside its window on a loaded machine (a stall of this
// process delays the checks, not the service's clock).
const TTL = 3000;

const team = (name: string) => ({ name, tricode: name.slice(0, 3), url: `https://img.example/${name}.png`, attackStart: false });

/** Polls `read` (every 100 ms: a read would extend a lifetime if reads did) until it answers 404; resolves with when it did. */
async function expiredAt(read: () => Promise<{ status: number }>): Promise<number> {
  await expect.poll(async () => (await read()).status, { timeout: 20_000, interval: 100 }).toBe(404);
  return performance.now();
}

describe('preview lifetime', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ AUTH_KEY: KEY, PREVIEW_TTL_MS: String(TTL), PREVIEW_MAX: '3' });
  });
  afterAll(async () => svc?.close());

  const create = async (previewCode: string, marker: string) => {
    const res = await fetch(`${svc.rest}/createPreview`, {
      method: 'PUT',
      body: JSON.stringify({ key: KEY, previewCode, leftTeam: team(marker), rightTeam: team('other') }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const read = async (code: string) => {
    const res = await fetch(`${svc.rest}/preview/${code}`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('expires TTL after creation; reads do not extend it; re-creation replaces it and restarts the timer', async () => {
    // Both previews run concurrently so the test takes one lifetime, not two.
    // REPL01 first: once READ01 has expired, REPL01's first life is over too.
    expect(await create('REPL01', 'old')).toEqual({ status: 200, body: { previewCode: 'REPL01' } });
    const t0 = performance.now();
    expect(await create('READ01', 'first')).toEqual({ status: 200, body: { previewCode: 'READ01' } });

    // REPL01 is replaced at mid-life. A fixed wait: the point in its lifetime is what the test
    // needs, and nothing in the service marks it.
    await sleep(TTL / 2);
    const replacedAt = performance.now();
    expect(await create('REPL01', 'new')).toEqual({ status: 200, body: { previewCode: 'REPL01' } });

    // READ01, read every 100 ms from here on, expires TTL after its creation (reads do not extend
    // it; had they, it would never expire here).
    const readExpired = await expiredAt(() => read('READ01'));
    expect(readExpired - t0).toBeGreaterThanOrEqual(TTL); // not early
    // REPL01's old life is over now (created with READ01); its new one goes on.
    const replaced = await read('REPL01');
    const checkEnd = performance.now();
    expect(checkEnd - replacedAt).toBeLessThan(TTL); // the check ran inside the new lifetime
    expect(replaced.status).toBe(200);
    expect((replaced.body.leftTeam as { name: string }).name).toBe('new');

    const replacedExpired = await expiredAt(() => read('REPL01'));
    expect(replacedExpired - replacedAt).toBeGreaterThanOrEqual(TTL); // TTL after the replacement, not the creation
    expect(await read('REPL01')).toEqual({ status: 404, body: { error: 'Preview not found' } });
  });

  it('refuses a new code with 503 { error } at PREVIEW_MAX, still replaces existing ones; room again once they expired unread', async () => {
    for (const code of ['MAX001', 'MAX002', 'MAX003']) expect(await create(code, code)).toMatchObject({ status: 200 });
    const full = await fetch(`${svc.rest}/createPreview`, {
      method: 'PUT',
      body: JSON.stringify({ key: KEY, previewCode: 'MAX004', leftTeam: team('x'), rightTeam: team('y') }),
    });
    expect(full.status).toBe(503);
    expect(full.headers.get('access-control-allow-origin')).toBe('*');
    expect(await full.json()).toEqual({ error: 'Too many previews stored, try again later' });
    expect((await read('MAX004')).status).toBe(404);

    const replaced = await create('MAX002', 'replacement');
    expect(replaced).toEqual({ status: 200, body: { previewCode: 'MAX002' } });
    expect((await create('MAX005', 'x')).status).toBe(503); // still three held

    // No read in between: once the oldest expired, a new code has room again (the others follow
    // within their own lifetimes; on a loaded machine they may still be there at this point).
    await expect.poll(async () => (await create('MAX004', 'later')).status, { timeout: 15_000, interval: 200 }).toBe(200);
    expect((await read('MAX001')).status).toBe(404);
    for (const code of ['MAX002', 'MAX003']) await expect.poll(async () => (await read(code)).status, { timeout: 15_000 }).toBe(404);
    expect((await read('MAX004')).body).toMatchObject({ previewCode: 'MAX004' });
  });
});

describe('team info lifetime', () => {
  let svc: TestService;
  const TEAM_TTL = 2000;
  beforeAll(async () => {
    svc = await startTestService({ AUTH_KEY: KEY, TEAM_INFO_TTL_MS: String(TEAM_TTL), TEAM_INFO_CLEANUP_MS: '200' });
  });
  afterAll(async () => {
    closeAll();
    await svc?.close();
  });

  const get = async (code: string) => {
    const res = await fetch(`${svc.rest}/getTeamInfoForCode?groupCode=${code}`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('the teams of a match\'s logon expire TEAM_INFO_TTL_MS after they were written (checked on read), the match itself going on', async () => {
    const leftTeam = team('L');
    const rightTeam = team('R');
    const t0 = performance.now();
    const { socket, ack } = await observer(svc.ingest, { key: KEY, groupCode: 'PLAIN1', leftTeam, rightTeam });
    expect(ack.value).toBe(true);
    expect(await get('PLAIN1')).toEqual({ status: 200, body: { leftTeam, rightTeam } });

    // Read every 100 ms until it expires: not early (TTL after the logon began at the earliest),
    // and expired on read.
    const expired = await expiredAt(() => get('PLAIN1'));
    expect(expired - t0).toBeGreaterThanOrEqual(TEAM_TTL);
    expect(await get('PLAIN1')).toEqual({ status: 404, body: { error: 'Group code not found' } });

    expect(await svc.admin.has('PLAIN1')).toBe(true); // the match outlives its team-info entry
    socket.close();
  });
});
