// Events the recorded match does not carry (docs/events.md): a team timeout called and over, a tech
// pause, and a force-end's match_ended (reason admin, with its record), sent by a real observer
// after part of the recorded match and read from GET /events.
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll } from '../../helpers/clients.js';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const replay = recordedMatch();
const KEY = 'hotkey-events-key-0123456789';
const READ = 'hotkey-read-token-0123456789';
const CODE = 'HOTKY1';

let svc: TestService | undefined;
afterAll(async () => {
  closeAll();
  await svc?.close();
});

type Ev = { type: string; seq: number; data: Record<string, unknown> };

describe('events from the observer\'s hotkeys and an operator', () => {
  it('timeout called and over, tech pause on and off, a force-end', async () => {
    svc = await startTestService({ AUTH_KEY: KEY, EVENTS_READ_TOKEN: READ });
    const ctrl = new AbortController();
    const res = await fetch(`${svc.rest}/events?groupCode=${CODE}`, { headers: { authorization: `Bearer ${READ}` }, signal: ctrl.signal });
    const events: Ev[] = [];
    void (async () => {
      const reader = res.body!.getReader();
      let buf = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buf += Buffer.from(value).toString('utf8');
          let i: number;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const data = /^data: (.*)$/m.exec(buf.slice(0, i))?.[1];
            buf = buf.slice(i + 2);
            if (data) events.push(JSON.parse(data) as Ev);
          }
        }
      } catch { /* aborted */ }
    })();
    const has = (type: string) => events.some((e) => e.type === type);

    const { socket, ack } = await replayObserver(svc.ingest, replay, { key: KEY, groupCode: CODE });
    expect(ack.value).toBe(true);
    const round3 = replay.records.findIndex((r) => r.type === 'round_info' && (r.data as { roundNumber: number }).roundNumber === 3);
    await sendRecords(socket, replay, { pace: 'instant', groupCode: CODE, to: round3 });
    await expect.poll(() => events.filter((e) => e.type === 'round_ended').length, { timeout: 20_000 }).toBe(2);

    const hotkey = (type: string) => socket.emit('obs_data', JSON.stringify({ obsName: 'Observer', groupCode: CODE, type, data: true }));
    hotkey('left_timeout');
    await expect.poll(() => has('timeout_called'), { timeout: 15_000 }).toBe(true);
    hotkey('left_timeout');
    await expect.poll(() => has('timeout_ended'), { timeout: 15_000 }).toBe(true);
    hotkey('tech_pause');
    await expect.poll(() => has('tech_pause_started'), { timeout: 15_000 }).toBe(true);
    hotkey('tech_pause');
    await expect.poll(() => has('tech_pause_ended'), { timeout: 15_000 }).toBe(true);
    const called = events.find((e) => e.type === 'timeout_called')!;
    expect(called.data.team).toMatchObject({ name: (replay.header.leftTeam as { name: string }).name });

    expect((await svc.admin.end(CODE)).status).toBe(200);
    await expect.poll(() => has('match_ended'), { timeout: 15_000 }).toBe(true);
    const end = events.find((e) => e.type === 'match_ended')!;
    expect(end.data.reason).toBe('admin');
    expect((end.data.record as { rounds: unknown[] }).rounds).toHaveLength(2);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    ctrl.abort();
    socket.close();
  }, 60_000);
});
