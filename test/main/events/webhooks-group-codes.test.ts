// Webhooks filtered by group code (issue 37; README, "Webhooks"): an endpoint may list `groupCodes`;
// it gets every event of those codes' matches and nothing of the others'. Two matches played at once
// from the recording into a real service with three real receivers: one of the setting filtered to
// the first code, one added through the admin API (batched) filtered to the second, one unfiltered.
// The admin API refuses a bad list with 400 naming it, lists the filter, and the filter is kept with
// the endpoint (DATA_DIR/webhook-endpoints.json) across a restart; the Redis adapter keeps it too
// (the store contract: webhook-endpoint-store.contract.ts).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll } from '../../helpers/clients.js';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const replay = recordedMatch();
const KEY = 'group-filter-key-0123456789';
const SECRET = `whsec_${Buffer.from('group-filter-secret-24-bytes!!').toString('base64')}`;
const [A, B] = ['GCODEA', 'GCODEB'];

const services: TestService[] = [];
const receivers: WebhookReceiver[] = [];
afterAll(async () => {
  closeAll();
  for (const s of services) await s.close();
  for (const r of receivers) await r.close();
});

const ended = (code: string) => (events: { type: string; groupCode?: unknown }[]) => events.some((e) => e.type === 'match_ended' && e.groupCode === code);
type Listed = { endpoints: { id: string; groupCodes: string[]; batch: boolean }[] };

describe('webhooks filtered by group code', () => {
  it('get every event of their codes\' matches and none of the others\'; the filter is listed and kept', async () => {
    const [onlyA, onlyB, all] = [await startReceiver(), await startReceiver(), await startReceiver()];
    receivers.push(onlyA, onlyB, all);
    const env = {
      AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true',
      WEBHOOKS: JSON.stringify([{ id: 'only-a', url: onlyA.url, secret: SECRET, groupCodes: [A] }, { id: 'all', url: all.url, secret: SECRET }]),
    };
    const svc = await startTestService(env);
    services.push(svc);
    const add = (body: unknown) => fetch(`${svc.rest}/admin/webhooks`, { method: 'POST', headers: { authorization: `Bearer ${svc.admin.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

    // Bad lists: 400 naming the member, nothing added.
    for (const groupCodes of ['GCODEB', [''], ['x'.repeat(65)], [42], Array.from({ length: 65 }, (_, i) => `C${i}`)]) {
      const res = await add({ url: onlyB.url, groupCodes });
      expect(res.status).toBe(400);
      expect((await res.json() as { error: string }).error).toContain('groupCodes');
    }
    const made = await add({ id: 'only-b', url: onlyB.url, groupCodes: [B], batch: true });
    expect(made.status).toBe(201);
    expect((await made.json() as { endpoint: unknown }).endpoint).toMatchObject({ id: 'only-b', groupCodes: [B], batch: true });
    const listed = await (await svc.admin.request('GET', '/admin/webhooks')).json() as Listed;
    expect(Object.fromEntries(listed.endpoints.map((e) => [e.id, e.groupCodes]))).toEqual({ 'only-a': [A], 'only-b': [B], all: [] });

    const [a, b] = [await replayObserver(svc.ingest, replay, { key: KEY, groupCode: A }), await replayObserver(svc.ingest, replay, { key: KEY, groupCode: B })];
    await Promise.all([sendRecords(a.socket, replay, { pace: 'instant', groupCode: A }), sendRecords(b.socket, replay, { pace: 'instant', groupCode: B })]);
    await all.waitFor((ev) => ended(A)(ev) && ended(B)(ev), 90_000);
    await onlyA.waitFor(ended(A), 60_000);
    await onlyB.waitFor(ended(B), 60_000);

    const ofCode = (r: WebhookReceiver, code: string) => r.unique().filter((e) => e.groupCode === code);
    expect(ofCode(all, A).length).toBeGreaterThan(200);
    expect(ofCode(all, B).length).toBe(ofCode(all, A).length);
    // Each filtered endpoint: exactly its code's events, all of them, in order; nothing of the other's.
    expect(onlyA.unique()).toEqual(ofCode(all, A));
    expect(onlyB.unique()).toEqual(ofCode(all, B));
    expect(onlyA.deliveries.some((d) => d.body.includes(B))).toBe(false);
    expect(onlyB.deliveries.some((d) => d.body.includes(A))).toBe(false);
    a.socket.close();
    b.socket.close();
    await svc.close();

    // Kept with the endpoint: in the file, and in the listing after a restart.
    const file = JSON.parse(fs.readFileSync(path.join(svc.dataDir, 'webhook-endpoints.json'), 'utf8')) as { endpoints: { id: string; groupCodes: string[] }[] };
    expect(file.endpoints.find((e) => e.id === 'only-b')?.groupCodes).toEqual([B]);
    const again = await startTestService({ ...env, DATA_DIR: svc.dataDir });
    services.push(again);
    const after = await (await again.admin.request('GET', '/admin/webhooks')).json() as Listed;
    expect(after.endpoints.find((e) => e.id === 'only-b')).toMatchObject({ groupCodes: [B], batch: true });
  }, 240_000);
});
