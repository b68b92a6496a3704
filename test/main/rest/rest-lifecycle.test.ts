// Preview and team-info lifetimes (docs/interface.md 3.1, 3.2; docs/match-rules.md 14.3) with short TTLs,
// over real HTTP: expiry, replacement resets the timer, reads do not extend it, PREVIEW_MAX → 503
// and room again once the previews expired unread; team info from an observer's logon expires
// TEAM_INFO_TTL_MS after it was written. The stores' own rules (setFinal's expiry, the byte bound):
// their port contracts (test/main/ports/, run by test/main/adapters/ports-memory.test.ts); memory freed without
// reads: test/main/adapters/memory-stores.test.ts.
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

/** Sleeps until `ms` after `since` (performance.now() time). */
const until = (since: number, ms: number) => sleep(Math.max(0, since + ms - performance.now()));

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
    const t0 = performance.now();
    expect(await create('READ01', 'first')).toEqual({ status: 200, body: { previewCode: 'READ01' } });
    expect(await create('REPL01', 'old')).toEqual({ status: 200, body: { previewCode: 'REPL01' } });
    const created = performance.now();

    await until(t0, 800);
    expect((await read('READ01')).status).toBe(200);
    await until(t0, 1600);
    expect((await read('READ01')).status).toBe(200);

    // Replace REPL01 at ~1600 ms: its old life would end at ~3000 ms, the new one at ~4600 ms.
    const replacedAt = performance.now();
    expect(await create('REPL01', 'new')).toEqual({ status: 200, body: { previewCode: 'REPL01' } });
    const replacedDone = performance.now(); // the new life started before this

    await until(created, TTL + 250);
    const checkStart = performance.now();
    // Had the reads extended READ01 (last read at ~1600 ms), it would live until ~4600 ms.
    expect((await read('READ01')).status).toBe(404);
    const replaced = await read('REPL01');
    const checkEnd = performance.now();
    expect(checkEnd - replacedAt).toBeLessThan(TTL); // the check ran inside the new lifetime
    expect(checkStart - created).toBeGreaterThan(TTL); // and after the old one
    expect(replaced.status).toBe(200);
    expect((replaced.body.leftTeam as { name: string }).name).toBe('new');

    await until(replacedDone, TTL + 250);
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
    const written = performance.now(); // written before the ack
    expect(ack.value).toBe(true);
    expect(await get('PLAIN1')).toEqual({ status: 200, body: { leftTeam, rightTeam } });

    await until(t0, TEAM_TTL / 2);
    expect(await get('PLAIN1')).toEqual({ status: 200, body: { leftTeam, rightTeam } }); // not early

    await until(written, TEAM_TTL + 150);
    expect(await get('PLAIN1')).toEqual({ status: 404, body: { error: 'Group code not found' } });
    expect(await svc.admin.has('PLAIN1')).toBe(true); // the match outlives its team-info entry
    socket.close();
  });
});
