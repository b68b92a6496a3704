// The operational events (docs/events.md, "Operational events"), through the same journal and
// webhooks as the match's own: the primary observer goes silent during a live round and comes back
// (observer_silent, observer_back, as the dashboard's silent flag sees it), then a standby is armed
// and an operator swaps the observers (observer_failover). A real observer pair, a real receiver.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll, connectObserver, logon } from '../../helpers/clients.js';
import { recordedMatch, replayLogon, sendRecords } from '../../helpers/recorded.js';
import { startTestService, tempDir, type TestService } from '../../helpers/service.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const replay = recordedMatch();
const KEY_A1 = 'operational-org-a-key-one';
const KEY_A2 = 'operational-org-a-key-two';
const CODE = 'OPEV01';
const SECRET = `whsec_${Buffer.from('operational-secret-24-bytes!').toString('base64')}`;

let svc: TestService | undefined;
let receiver: WebhookReceiver | undefined;
afterAll(async () => {
  closeAll();
  await svc?.close();
  await receiver?.close();
});

describe('operational events', () => {
  it('observer silent and back, and a failover, reach the webhooks in the match\'s order', async () => {
    receiver = await startReceiver();
    const dir = tempDir('operational-keys');
    const KEYS_FILE = path.join(dir, 'keys.json');
    fs.writeFileSync(KEYS_FILE, JSON.stringify({ keys: [{ key: KEY_A1, organizationId: 'org-a' }, { key: KEY_A2, organizationId: 'org-a' }] }));
    svc = await startTestService({ KEYS_FILE, OBSERVER_SILENT_MS: '1000', WEBHOOKS: JSON.stringify([{ id: 'rx', url: receiver.url, secret: SECRET }]) });
    const records = replay.records.map((r) => ({ ...r, groupCode: CODE }));
    const p = connectObserver(svc.ingest);
    expect((await logon(p, 'obs_logon', replayLogon(replay, { key: KEY_A1, groupCode: CODE }))).ack.value).toBe(true);
    await sendRecords(p, replay, { pace: 'instant', groupCode: CODE, to: 400 });
    await receiver.waitFor((ev) => ev.some((e) => e.type === 'round_started'), 30_000);

    // Silent: nothing from the primary for more than OBSERVER_SILENT_MS in a live round (its socket open).
    await receiver.waitFor((ev) => ev.some((e) => e.type === 'observer_silent'), 20_000);
    expect(receiver.unique().some((e) => e.type === 'observer_back')).toBe(false);
    const silent = receiver.unique().find((e) => e.type === 'observer_silent')!;
    expect(silent.data.silentMs as number).toBeGreaterThanOrEqual(1000);
    expect(typeof silent.data.lastMessageAt).toBe('string');
    p.emit('obs_data', JSON.stringify(records[400]));
    await receiver.waitFor((ev) => ev.some((e) => e.type === 'observer_back'), 20_000);
    const back = receiver.unique().find((e) => e.type === 'observer_back')!;
    expect(back.data.silentMs as number).toBeGreaterThanOrEqual(1000);
    expect(back.seq).toBeGreaterThan(silent.seq);

    // A standby armed and logged on; the operator swaps: observer_failover.
    expect((await svc.admin.request('POST', `/admin/matches/${CODE}/standby`)).status).toBe(200);
    const s = connectObserver(svc.ingest);
    expect((await logon(s, 'obs_logon', replayLogon(replay, { key: KEY_A2, groupCode: CODE, obsName: 'Standby#EUW' }))).ack.value).toBe(true);
    expect((await svc.admin.request('POST', `/admin/matches/${CODE}/failover`)).status).toBe(200);
    await receiver.waitFor((ev) => ev.some((e) => e.type === 'observer_failover'), 20_000);
    const failover = receiver.unique().find((e) => e.type === 'observer_failover')!;
    expect(failover.data).toEqual({ cause: 'manual', from: 'group', to: 'standby' });
    expect(failover.groupCode).toBe(CODE);

    // One match, one sequence: the operational events are numbered with the shard's.
    const events = receiver.unique();
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(new Set(events.map((e) => e.matchKey)).size).toBe(1);
    p.close();
    s.close();
  }, 90_000);
});
