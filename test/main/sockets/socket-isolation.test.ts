// Two socket.io servers on uWS in one process cross-talk through the patched adapter, and a
// socket.io server on node:http next to one on uWS breaks (docs/stack-notes.md). These tests run two whole
// services (one TLS, one plain) in this process and prove that:
// - an ingestion client never receives broadcast traffic, and a broadcast client never receives
//   ingestion traffic, over websocket and over polling;
// - per-socket emits of the ingestion server (connection state recovery on) reach their client
//   over websocket, which the stock patched adapter loses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io as connect, type Socket } from 'socket.io-client';
import { observer as observerClient } from '../../helpers/clients.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const opened: Socket[] = [];
function client(url: string, transports: ('polling' | 'websocket')[]): Socket {
  const socket = connect(url, { transports, reconnection: false, forceNew: true, rejectUnauthorized: false });
  opened.push(socket);
  return socket;
}
const connected = (s: Socket) => new Promise<void>((resolve, reject) => {
  if (s.connected) return resolve();
  s.once('connect', () => resolve());
  s.once('connect_error', reject);
});
const nextEvent = <T = unknown>(s: Socket, event: string, ms = 15_000) => new Promise<T>((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`no ${event} within ${ms} ms`)), ms);
  s.once(event, (payload: T) => { clearTimeout(timer); resolve(payload); });
});
function recordAll(s: Socket): string[] {
  const seen: string[] = [];
  s.onAny((event: string) => seen.push(event));
  return seen;
}

let plain: TestService;
let secure: TestService;

beforeAll(async () => {
  plain = await startTestService({ INSECURE: 'true', AUTH_KEY: 'isolation-key' });
  secure = await startTestService({ INSECURE: 'false', AUTH_KEY: 'isolation-key' });
});
afterAll(async () => {
  for (const s of opened) s.close();
  await plain?.close();
  await secure?.close();
});

describe.each([
  ['websocket', ['websocket'] as ('polling' | 'websocket')[]],
  ['polling', ['polling'] as ('polling' | 'websocket')[]],
  ['polling then upgrade', ['polling', 'websocket'] as ('polling' | 'websocket')[]],
])('listener isolation over %s', (_name, transports) => {
  it.each([['plain', () => plain], ['TLS', () => secure]] as const)('%s service: ingestion and broadcast traffic never cross', async (_kind, get) => {
    const svc = get();
    const other = svc === plain ? secure : plain;
    const code = `ISO${transports.join('').length}${svc === plain ? 'P' : 'T'}`;

    const overlay = client(svc.broadcast, transports);
    const observer = client(svc.ingest, transports);
    const otherOverlay = client(other.broadcast, transports);
    await Promise.all([connected(overlay), connected(observer), connected(otherOverlay)]);
    const overlaySeen = recordAll(overlay);
    const observerSeen = recordAll(observer);
    const otherSeen = recordAll(otherOverlay);

    // The overlay of both services logs on to the same room name.
    const success = nextEvent<string>(overlay, 'logon_success');
    const otherSuccess = nextEvent<string>(otherOverlay, 'logon_success');
    overlay.emit('logon', JSON.stringify({ groupCode: code }));
    otherOverlay.emit('logon', JSON.stringify({ groupCode: code }));
    expect(JSON.parse(await success)).toEqual({ groupCode: code, msg: `Logon succeeded for group code ${code}` });
    await otherSuccess;
    if (transports.includes('websocket') && transports.length > 1) {
      await expect.poll(() => [overlay, observer, otherOverlay].every((s) => s.io.engine.transport.name === 'websocket')).toBe(true); // the upgrade is done
    }

    // Ingestion per-socket emit (recovery on: goes through the adapter) reaches its own client.
    const echo1 = nextEvent<string>(observer, 'test_echo');
    observer.emit('test_echo', JSON.stringify({ n: 1 }));
    expect(await echo1).toBe(JSON.stringify({ n: 1 }));

    // A frame of this service's match (another observer starts it) reaches the overlay of this service only.
    const delivered = nextEvent<string>(overlay, 'match_data');
    const starter = await observerClient(svc.ingest, { key: 'isolation-key', groupCode: code }, { transports, reconnection: false });
    opened.push(starter.socket);
    expect(starter.ack.value).toBe(true);
    expect(JSON.parse(await delivered)).toMatchObject({ groupCode: code, roundPhase: 'LOBBY' });

    // Ingestion traffic again, after the publish.
    const echo2 = nextEvent<string>(observer, 'test_echo');
    observer.emit('test_echo', JSON.stringify({ n: 2 }));
    expect(await echo2).toBe(JSON.stringify({ n: 2 }));

    // Markers, one per socket, each on the path something crossing over would have taken: the
    // observer's second echo (sent after the frame was delivered), this match's next frame for the
    // overlay, and for the other service's overlay the first frame of its own match.
    const nextFrame = nextEvent<string>(overlay, 'match_data');
    starter.socket.emit('obs_data', JSON.stringify({ obsName: 'o', groupCode: code, type: 'map', data: 'Ascent' }));
    expect(JSON.parse(await nextFrame)).toMatchObject({ groupCode: code, map: 'Ascent' });
    const otherFrame = nextEvent<string>(otherOverlay, 'match_data');
    const otherStarter = await observerClient(other.ingest, { key: 'isolation-key', groupCode: code }, { transports, reconnection: false });
    opened.push(otherStarter.socket);
    expect(JSON.parse(await otherFrame)).toMatchObject({ groupCode: code, roundPhase: 'LOBBY' });
    expect(observerSeen).toEqual(['test_echo', 'test_echo']);
    expect(overlaySeen).toEqual(['logon_success', 'match_data', 'match_data']);
    expect(otherSeen).toEqual(['logon_success', 'match_data']);
  });
});
