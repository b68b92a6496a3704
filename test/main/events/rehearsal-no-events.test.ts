// A rehearsal is never a real match to anyone outside (README, "Rehearsals"; docs/events.md): played
// to its round 19 and stopped, it gives a webhook receiver nothing and leaves no record, while a real
// match's events started after it arrive.
import { describe, expect, it } from 'vitest';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { serviceWithReceiver, webhookSecret } from '../../helpers/webhook-service.js';

const replay = recordedMatch();
const KEY = 'rehearsal-events-key-0123456789';
const SECRET = webhookSecret('rehearsal-secret-of-24-bytes!!');

const start = serviceWithReceiver(SECRET);

describe('rehearsals and events', () => {
  it('a rehearsal gives the webhooks nothing and leaves no record', async () => {
    const { svc, rx } = await start({ AUTH_KEY: KEY });
    const s = svc;
    const post = (path: string, body: unknown) => fetch(`${s.rest}${path}`, { method: 'POST', headers: { authorization: `Bearer ${s.admin.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post('/admin/rehearsals', { groupCode: 'RHRSL1', speed: 10, startRound: 19 })).status).toBe(201);
    // Fast-forwarded to round 19: 18 rounds were played into the match.
    await expect.poll(async () => {
      const res = await fetch(`${s.rest}/match/RHRSL1`);
      return res.status === 200 ? ((await res.json()) as { roundNumber: number }).roundNumber : 0;
    }, { timeout: 30_000 }).toBe(19);
    expect((await post('/admin/rehearsals/RHRSL1/stop', {})).status).toBe(200);

    const { socket, ack } = await replayObserver(s.ingest, replay, { key: KEY, groupCode: 'REALM1' });
    expect(ack.value).toBe(true);
    await sendRecords(socket, replay, { pace: 'instant', groupCode: 'REALM1', to: 30 });
    await rx.waitFor((ev) => ev.some((e) => e.groupCode === 'REALM1' && e.type === 'agent_selected'), 30_000);
    expect(rx.unique().filter((e) => e.groupCode === 'RHRSL1')).toEqual([]);
    const records = await (await s.admin.request('GET', '/admin/records')).json() as { records: { groupCode: string }[] };
    expect(records.records.filter((r) => r.groupCode === 'RHRSL1')).toEqual([]);
    socket.close();
  }, 90_000);
});
