// Issue 35, "right data", through the real service (recorded clock, a webhook receiver): the
// recorded match and its variant with the messages of each millisecond in the other order give the
// same events and the same match record; every event of both validates against the service's own
// GET /schema/events.json; the four defused rounds say `defuse`; and a restart with STATE_DIR in the
// middle of round 10 (its clutch candidate known from the killfeed, the scoreboard's alive flags
// behind it) gives the events of the uninterrupted run.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAll, connectObserver, logon } from '../../helpers/clients.js';
import { recordedMatch, replayLogon, sendRecords, type Replay } from '../../helpers/recorded.js';
import { recordingFacts, sameMillisecondReversed } from '../../helpers/recorded-events.js';
import { restartableEnv, startTestService, type TestService } from '../../helpers/service.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const replay = recordedMatch();
const variant: Replay = { ...replay, records: sameMillisecondReversed(replay.records) };
const facts = recordingFacts(replay);
const KEY = 'round-facts-key-0123456789';
const SECRET = `whsec_${Buffer.from('round-facts-secret-24-bytes!').toString('base64')}`;
/** Mid round 10: HippoStalker93 is team 1's last player by the killfeed (record 1490), the scoreboard still shows two. */
const MID_ROUND_10 = 1505;

type Ev = ReturnType<WebhookReceiver['unique']>[number];
let rx: WebhookReceiver | undefined;
let svc: TestService;
const services: TestService[] = [];
afterAll(async () => {
  closeAll();
  for (const s of services) await s.close();
  await rx?.close();
});

const ofCode = (code: string) => rx!.unique().filter((e) => e.groupCode === code);
const ended = (code: string) => (ev: Ev[]) => ev.some((e) => e.groupCode === code && e.type === 'match_ended');

/** What must agree between two runs of the match: everything but the names of the instance and the wall-clock times of its creation and storage. */
function comparable(events: Ev[]): unknown[] {
  return events.map(({ id: _id, matchKey: _key, groupCode: _code, ...e }) => {
    const out: Record<string, unknown> = { ...e };
    if (e.type === 'match_created') delete out.time;
    if (e.type === 'match_ended') out.data = { ...e.data, record: comparableRecord(e.data.record as Record<string, unknown>) };
    return out;
  });
}
function comparableRecord({ matchKey: _k, groupCode: _g, storedAt: _s, startedAt: _t, ...rest }: Record<string, unknown>): unknown {
  return rest;
}

async function play(svc: TestService, code: string, recs: Replay, to?: number) {
  const socket = connectObserver(svc.ingest, { reconnection: true });
  const { ack } = await logon(socket, 'obs_logon', replayLogon(replay, { key: KEY, groupCode: code }));
  expect(ack.value).toBe(true);
  await sendRecords(socket, recs, { pace: 'instant', groupCode: code, to });
  return socket;
}

describe('the recorded match\'s events and record', () => {
  // The uninterrupted run in the recording's order (RFORIG), which both tests compare with.
  beforeAll(async () => {
    rx = await startReceiver();
    const { env } = await restartableEnv(KEY);
    svc = await startTestService({ ...env, WEBHOOKS: JSON.stringify([{ id: 'rx', url: rx.url, secret: SECRET }]) });
    services.push(svc);
    await play(svc, 'RFORIG', replay);
    await rx.waitFor(ended('RFORIG'), 60_000);
  }, 120_000);

  it('are the same whatever the order of the messages that share a millisecond, and all validate against the schema', async () => {
    await play(svc, 'RFVARI', variant);
    await rx!.waitFor(ended('RFVARI'), 60_000);
    const original = ofCode('RFORIG');
    const reordered = ofCode('RFVARI');

    expect(comparable(reordered)).toEqual(comparable(original));
    const rounds = original.filter((e) => e.type === 'round_ended').map((e) => e.data as { round: number; method: string; score: unknown });
    expect(rounds.map((r) => r.score)).toEqual(facts.rounds.map((r) => r.score));
    expect(rounds.filter((r) => r.method === 'defuse').map((r) => r.round)).toEqual([1, 7, 8, 11]);

    // The service's own schema, as a consumer that validates reads it.
    const res = await fetch(`${svc.rest}/schema/events.json`);
    expect(res.status).toBe(200);
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    ajv.addFormat('date-time', (s: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(s) && !Number.isNaN(Date.parse(s)));
    const validate = ajv.compile(await res.json() as object);
    for (const e of [...original, ...reordered]) expect(validate(e) ? [] : validate.errors, `${e.groupCode} ${e.seq} ${e.type}`).toEqual([]);
    expect(original.length).toBeGreaterThan(200);

    // The stored records: the same, and as match_ended carried them.
    const record = async (e: Ev) => {
      const r = await fetch(`${svc.rest}/admin/records/${e.matchKey}`, { headers: { authorization: `Bearer ${svc.admin.token}` } });
      expect(r.status).toBe(200);
      return r.json() as Promise<Record<string, unknown>>;
    };
    const [a, b] = [await record(original.at(-1)!), await record(reordered.at(-1)!)];
    expect(comparableRecord(b)).toEqual(comparableRecord(a));
    expect((a.rounds as Array<{ method: string }>).filter((r) => r.method === 'defuse')).toHaveLength(4);
    expect(a).toEqual(original.at(-1)!.data.record);
  }, 180_000);

  it('after a restart mid-round are those of the uninterrupted run (the clutch from the killfeed, not the scoreboard)', async () => {
    const { env } = await restartableEnv(KEY);
    const svc = await startTestService({ ...env, WEBHOOKS: JSON.stringify([{ id: 'rx', url: rx!.url, secret: SECRET }]) });
    services.push(svc);
    const socket = await play(svc, 'RFRSTR', replay, MID_ROUND_10);
    await rx!.waitFor((ev) => ev.some((e) => e.groupCode === 'RFRSTR' && e.type === 'round_ended' && e.round === 9), 30_000);
    // The shutdown's drain snapshots the match as the last applied record left it.
    await expect.poll(() => svc.metric('ods_messages_applied_total'), { timeout: 15_000 }).toBe(MID_ROUND_10);
    await svc.shutdown();
    const again = await startTestService({ ...env, WEBHOOKS: JSON.stringify([{ id: 'rx', url: rx!.url, secret: SECRET }]) });
    services.push(again);
    await expect.poll(() => socket.connected, { timeout: 20_000 }).toBe(true);
    await expect.poll(() => again.logs.some((l) => l.includes('session resumed') && l.includes('RFRSTR')), { timeout: 20_000 }).toBe(true);
    await sendRecords(socket, replay, { pace: 'instant', groupCode: 'RFRSTR', from: MID_ROUND_10 });
    await rx!.waitFor(ended('RFRSTR'), 60_000);

    const restarted = ofCode('RFRSTR');
    const clean = ofCode('RFORIG');
    const clutch10 = (ev: Ev[]) => ev.find((e) => e.type === 'clutch' && e.round === 10)?.data;
    expect(clutch10(clean)).toMatchObject({ player: { name: 'HippoStalker93' }, against: 3 });
    expect(clutch10(restarted)).toEqual(clutch10(clean));
    expect(comparable(restarted)).toEqual(comparable(clean));
  }, 180_000);
});
