// Rehearsals and the service's limits (README, "Rehearsals"): they count against MAX_LIVE_MATCHES
// (a rehearsal past it is refused, and so is a real observer's new match while rehearsals fill it),
// a looping rehearsal starts its match again at the recording's end, and every rehearsal ends by
// itself after REHEARSAL_MAX_MS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAll, overlay, refusedLogon, observerLogon } from '../../helpers/clients.js';
import { recordedMatch } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const replay = recordedMatch();
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ AUTH_KEY: 'LIMITS-KEY', MAX_LIVE_MATCHES: '2', REHEARSAL_MAX_MS: '10000' });
});
afterAll(async () => {
  closeAll();
  await svc?.close();
});

const headers = () => ({ authorization: `Bearer ${svc.admin.token}`, 'content-type': 'application/json' });
async function start(body: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${svc.rest}/admin/rehearsals`, { method: 'POST', headers: headers(), body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
async function status(code: string): Promise<{ loops: number; state: string } | undefined> {
  const res = await fetch(`${svc.rest}/admin/rehearsals`, { headers: headers() });
  return ((await res.json()) as { rehearsals: Array<{ groupCode: string; loops: number; state: string }> }).rehearsals.find((r) => r.groupCode === code);
}

describe('rehearsals and the limits', () => {
  it('count against MAX_LIVE_MATCHES, loop when asked, and end by themselves after REHEARSAL_MAX_MS', async () => {
    const startedAt = Date.now();
    // Round 1 of the recording only (about a second at 10×), looping from round 1.
    const short = [replay.header, ...replay.records.slice(0, 60)].map((r) => JSON.stringify(r)).join(',\n');
    const fe = await overlay(svc.broadcast, 'LOOP1');
    expect((await start({ groupCode: 'LOOP1', recording: 'upload', replay: short, speed: 10, startRound: 1, loop: true })).status).toBe(201);
    expect((await start({ groupCode: 'SLOW1', speed: 1 })).status).toBe(201);
    const refused = await start({ groupCode: 'FULL1' });
    expect(refused.status).toBe(503);
    expect(String(refused.body.error)).toContain('capacity');
    const observer = await refusedLogon(svc.ingest, 'obs_logon', JSON.stringify(observerLogon({ key: 'LIMITS-KEY', groupCode: 'LIVE01' })));
    expect((JSON.parse(observer.acks[0]) as { reason: string }).reason).toContain('capacity');
    expect(await svc.admin.codes()).toEqual(['LOOP1', 'SLOW1']);

    // The loop: the match ends at the recording's end and starts again (a new match: its frame numbers restart).
    await expect.poll(async () => (await status('LOOP1'))?.loops ?? 0, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
    expect(fe.frames.filter((f) => f.roundNumber === 1).length).toBeGreaterThan(1);

    // REHEARSAL_MAX_MS: both end by themselves, looping or not.
    await expect.poll(() => svc.admin.codes(), { timeout: 30_000 }).toEqual([]);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(9_000);
    expect(await status('LOOP1')).toBeUndefined();
    expect(svc.logged({ msg: 'rehearsal reached REHEARSAL_MAX_MS' }).map((l) => l.groupCode).sort()).toEqual(['LOOP1', 'SLOW1']);
  }, 60_000);
});
