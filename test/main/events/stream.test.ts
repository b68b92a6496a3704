// GET /events (README, "Live event stream"; docs/events.md): the match events as server-sent events
// with a read token and filters, resumed after a dropped connection with Last-Event-ID without a
// miss or a repeat; the events admin routes with and without the admin token.
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll } from '../../helpers/clients.js';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const replay = recordedMatch();
const KEY = 'stream-key-0123456789';
const READ = 'read-token-0123456789abcdef';
const HALF = Math.floor(replay.records.length / 2);

let svc: TestService | undefined;
afterAll(async () => {
  closeAll();
  await svc?.close();
});

interface Sse { id: string; event: string; data: Record<string, unknown> & { seq: number; type: string } }

/** An open stream: its events as they come, `until` waits for one that matches, `drop` cuts the connection. */
async function open(url: string, headers: Record<string, string> = {}) {
  const ctrl = new AbortController();
  const res = await fetch(url, { headers, signal: ctrl.signal });
  const events: Sse[] = [];
  const waiters = new Set<() => void>();
  const done = (async () => {
    const reader = res.body!.getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done: end } = await reader.read();
        if (end) return;
        buffer += Buffer.from(value).toString('utf8');
        let i: number;
        while ((i = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, i);
          buffer = buffer.slice(i + 2);
          const id = /^id: (.*)$/m.exec(block)?.[1];
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) events.push({ id: id ?? '', event, data: JSON.parse(data) });
          for (const w of waiters) w();
        }
      }
    } catch { /* aborted */ }
  })();
  return {
    res, events,
    until(pred: (e: Sse) => boolean, ms = 30_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = () => { if (events.some(pred)) { clearTimeout(t); waiters.delete(check); resolve(); } };
        const t = setTimeout(() => { waiters.delete(check); reject(new Error(`no such event within ${ms} ms (${events.length} events)`)); }, ms);
        waiters.add(check);
        check();
      });
    },
    async drop() { ctrl.abort(); await done; },
  };
}

describe('GET /events', () => {
  it('streams the events with a read token, filters them, and resumes with Last-Event-ID without a miss', async () => {
    svc = await startTestService({ AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true', EVENTS_READ_TOKEN: READ });
    const url = `${svc.rest}/events`;
    // Without a token, or with a wrong one: 401.
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(401);

    const all = await open(`${url}?groupCode=STRM01`, { authorization: `Bearer ${READ}` });
    expect(all.res.status).toBe(200);
    expect(all.res.headers.get('content-type')).toContain('text/event-stream');
    const rounds = await open(`${url}?token=${READ}&type=round_ended`);
    const other = await open(`${url}?token=${READ}&groupCode=NOPE99`);

    const { socket, ack } = await replayObserver(svc.ingest, replay, { key: KEY, groupCode: 'STRM01' });
    expect(ack.value).toBe(true);
    await sendRecords(socket, replay, { pace: 'instant', groupCode: 'STRM01', to: HALF });
    await all.until((e) => e.event === 'round_ended');
    // The connection drops; the match goes on meanwhile.
    await all.drop();
    const seen = [...all.events];
    const lastId = seen[seen.length - 1].id;
    await sendRecords(socket, replay, { pace: 'instant', groupCode: 'STRM01', from: HALF });
    await rounds.until((e) => e.data.round === 19);
    const resumed = await open(`${url}?groupCode=STRM01`, { authorization: `Bearer ${READ}`, 'last-event-id': lastId });
    await resumed.until((e) => e.event === 'match_ended');

    const ids = [...seen, ...resumed.events].map((e) => e.data.seq);
    expect(ids).toEqual(ids.map((_, i) => i + 1)); // every event once, in order
    expect([...seen, ...resumed.events].every((e) => e.id === e.data.id && e.event === e.data.type)).toBe(true);
    expect(rounds.events.map((e) => e.event)).toEqual(Array(19).fill('round_ended'));
    expect(other.events).toHaveLength(0);

    // An id outside the window: a gap, then the live events.
    const lost = await open(url, { authorization: `Bearer ${READ}`, 'last-event-id': 'NOPE99-0.1' });
    await lost.until((e) => e.event === 'gap');
    expect(lost.events[0].data).toMatchObject({ lastEventId: 'NOPE99-0.1' });
    for (const s of [rounds, other, resumed, lost]) await s.drop();
  }, 120_000);

  it('the events admin routes need the admin token', async () => {
    const s = svc!;
    for (const path of ['/admin/webhooks', '/admin/records']) {
      expect((await fetch(`${s.rest}${path}`)).status).toBe(401);
      expect((await s.admin.request('GET', path)).status).toBe(200);
    }
    const add = await fetch(`${s.rest}/admin/webhooks`, { method: 'POST', body: JSON.stringify({ url: 'http://127.0.0.1:9/x' }) });
    expect(add.status).toBe(401);
    const made = await fetch(`${s.rest}/admin/webhooks`, {
      method: 'POST', headers: { authorization: `Bearer ${s.admin.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ id: 'made', url: 'http://127.0.0.1:9/x', events: ['kill'] }),
    });
    expect(made.status).toBe(201);
    const body = await made.json() as { endpoint: { id: string }; secret: string };
    expect(body.endpoint.id).toBe('made');
    expect(body.secret).toMatch(/^whsec_/);
    const list = await (await s.admin.request('GET', '/admin/webhooks')).text();
    expect(list).toContain('"made"');
    expect(list).not.toContain(body.secret);
    const bad = await fetch(`${s.rest}/admin/webhooks`, {
      method: 'POST', headers: { authorization: `Bearer ${s.admin.token}` }, body: JSON.stringify({ url: 'ftp://x' }),
    });
    expect(bad.status).toBe(400);
    expect((await bad.json() as { error: string }).error).toContain('url');
    expect((await s.admin.request('POST', '/admin/webhooks/made/remove')).status).toBe(200);
    expect((await s.admin.request('POST', '/admin/webhooks/made/remove')).status).toBe(404);
    expect(s.logs.some((l) => l.includes(body.secret))).toBe(false);
  });
});
