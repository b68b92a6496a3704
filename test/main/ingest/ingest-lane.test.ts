// The ingestion lane (src/main/internals/ingest-lane.ts) takes an observer's data packets straight
// from the WebSocket, in uWS's call; every other packet goes engine.io's and socket.io's way, handled
// two ticks later. A socket's packets must still be handled in the order they came, also when
// several came in one TCP read (uWS then calls once per message, and the ticks of each call run
// before the next call): here a logon and the first data behind it, in one write of the client's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { closeAll, observerLogon, overlay } from '../../helpers/clients.js';
import { tcpOf } from '../../helpers/internals/ws.js';
import { startTestService, type TestService } from '../../helpers/service.js';

let svc: TestService;
beforeAll(async () => { svc = await startTestService({ AUTH_KEY: 'k' }); });
afterAll(async () => { closeAll(); await svc?.close(); });

/** One client WebSocket message (FIN, text), masked with a zero key as a client must mask (RFC 6455 5.3). */
function clientFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const head = payload.length < 126
    ? Buffer.from([0x81, 0x80 | payload.length])
    : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([head, Buffer.alloc(4), payload]);
}

/** A raw Engine.IO WebSocket joined to the main namespace; `received` fills with the server's packets. */
async function rawSocketIo(url: string): Promise<{ ws: WebSocket; received: string[] }> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`);
  const received: string[] = [];
  ws.on('message', (data) => received.push(String(data)));
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  await expect.poll(() => received.some((p) => p.startsWith('0{'))).toBe(true);
  ws.send('40');
  await expect.poll(() => received.some((p) => p.startsWith('40{'))).toBe(true);
  return { ws, received };
}

describe('the ingestion lane', () => {
  it('a logon and its first data in one TCP write: the data is applied, after the logon', async () => {
    const fe = await overlay(svc.broadcast, 'LANE01');
    const { ws, received } = await rawSocketIo(svc.ingest);
    const logon = JSON.stringify(observerLogon({ key: 'k', groupCode: 'LANE01' }));
    const data = JSON.stringify({ obsName: 'Observer#EUW', groupCode: 'LANE01', type: 'map', data: 'Port' });
    tcpOf(ws).write(Buffer.concat([
      clientFrame(`42${JSON.stringify(['obs_logon', logon])}`),
      clientFrame(`42${JSON.stringify(['obs_data', data])}`),
    ]));
    await expect.poll(() => received.find((p) => p.startsWith('42["obs_logon_ack"'))).toBeDefined();
    expect(JSON.parse(received.find((p) => p.startsWith('42["obs_logon_ack"'))!.slice(2))[1]).toMatch(/"value":true/);
    await fe.waitFor((f) => f.map === 'Icebox'); // had the data come before the logon, it would be dropped unanswered
    ws.close();
  });
});
