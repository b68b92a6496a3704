// An upgrade from polling to WebSocket that a slow network holds up past REQUEST_HEAD_TIMEOUT_MS
// (docs/reliability.md, "Connection abuse"; seen in venue-outage.test.ts: a LAN venue's clients
// reconnecting at once after an outage). socket.io-client 4.8.1 (engine.io-client 6.6) pauses its
// polling transport when the WebSocket probe is answered, and waits for its pending poll and post to
// return before it sends the upgrade. If the service closes the probe meanwhile (engine.io's
// `upgradeTimeout`), the client's probe fails after the pause has begun: its pause callback returns
// without resuming the polling transport, so the client never polls again, hears nothing more, and
// what it emits stays in its engine's buffer until its ping timeout drops the connection, and the
// buffer with it. The service therefore gives an upgrade the heartbeat's span (PING_INTERVAL_MS +
// PING_TIMEOUT_MS): a client that is really gone is closed by the heartbeat within it anyway.
//
// Here a TCP proxy in front of each Socket.IO port holds what the service answers on polling
// requests from the moment the client's WebSocket probe goes through, for longer than
// REQUEST_HEAD_TIMEOUT_MS (1 s, its minimum), then lets it go: the client must finish its upgrade,
// stay connected, and every message it emitted meanwhile must arrive.
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { connect, connected, connectObserver, observerLogon, logon, nextEvent } from '../../helpers/clients.js';
import { recordedMatch, replayLogon } from '../../helpers/recorded.js';
import { serviceForFile } from '../../helpers/service.js';
import { pollUntil } from '../../helpers/waits.js';

const HEAD_TIMEOUT_MS = 1000;
/** Longer than the head timeout, well within the heartbeat (10 s + 10 s). */
const HOLD_MS = 4000;
const svc = serviceForFile({ AUTH_KEY: 'k', TRUST_REPLAY_TIMESTAMPS: 'true', REQUEST_HEAD_TIMEOUT_MS: String(HEAD_TIMEOUT_MS), PING_INTERVAL_MS: '10000', PING_TIMEOUT_MS: '10000' });
const replay = recordedMatch();

/**
 * A proxy to `target` that, once a connection asks for `transport=websocket`, holds the service's
 * answers on every polling connection (each request of the node client is a connection of its own)
 * for HOLD_MS, then passes them on. Counts the answers it held.
 */
async function slowPollsDuringUpgrade(target: string) {
  const port = Number(new URL(target).port);
  const sockets = new Set<net.Socket>();
  let holdUntil = 0;
  let held = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('error', () => upstream.destroy()).on('close', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream);
    // The service's bytes, and then its end, to the client in order, each after the hold if one is on.
    let order = Promise.resolve();
    const later = (then: () => void) => {
      const wait = holdUntil - Date.now();
      order = order.then(() => (wait > 0 ? new Promise<void>((resolve) => setTimeout(resolve, wait)) : undefined)).then(then);
      return wait > 0;
    };
    client.once('data', (first: Buffer) => {
      const probe = first.includes('transport=websocket');
      if (probe && holdUntil === 0) holdUntil = Date.now() + HOLD_MS; // the probe: polling answers wait from now on
      upstream.on('data', (chunk: Buffer) => {
        if (probe) return void client.write(chunk);
        if (later(() => client.write(chunk))) held++;
      });
      upstream.on('close', () => (probe ? client.destroy() : later(() => client.end())));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    held: () => held,
    holding: () => holdUntil > Date.now(),
    close() { server.close(); for (const s of sockets) s.destroy(); },
  };
}
const proxies: { close(): void }[] = [];
afterAll(() => { for (const p of proxies) p.close(); });

describe('an upgrade a slow network holds up past REQUEST_HEAD_TIMEOUT_MS', () => {
  it('the observer finishes its upgrade, stays connected, and loses none of what it emitted meanwhile', async () => {
    const proxy = await slowPollsDuringUpgrade(svc.ingest);
    proxies.push(proxy);
    const code = 'SLOWUP';
    const s = connectObserver(proxy.url); // the client's options: polling first, then the upgrade
    const history: string[] = [];
    s.io.on('open', () => {
      s.io.engine.on('upgrading', () => history.push('upgrading'));
      s.io.engine.on('upgrade', () => history.push('upgrade'));
      s.io.engine.on('upgradeError', (err: Error) => history.push(`upgradeError ${err.message}`));
    });
    s.on('disconnect', (reason: string) => history.push(`disconnect ${reason}`));
    const logonDone = logon(s, 'obs_logon', replayLogon(replay, { key: 'k', groupCode: code }), { ackMs: 20_000 });
    // The probe answered and the polling transport pausing, its answers held: emit while it is.
    await pollUntil(() => history.includes('upgrading'), 'the probe answered', 10_000);
    const duringTheHold = proxy.holding();
    const sent = 100;
    for (let k = 0; k < sent; k++) s.emit('obs_data', JSON.stringify({ ...replay.records[k], groupCode: code }));
    expect((await logonDone).ack.value).toBe(true);
    expect(duringTheHold).toBe(true);
    // Past the head timeout the service has not closed the probe: the client upgrades once the answers pass.
    await pollUntil(() => s.io.engine?.transport?.name === 'websocket', `the upgrade (${history.join(', ')})`, 15_000);
    expect(proxy.held()).toBeGreaterThan(0);
    expect(history.filter((h) => h.startsWith('upgradeError') || h.startsWith('disconnect'))).toEqual([]);
    await expect.poll(() => svc.metric('ods_messages_received_total', { event: 'obs_data' }), { timeout: 15_000 }).toBe(sent);
    expect(s.connected).toBe(true);
  }, 45_000);

  it('an overlay on the broadcast port finishes its held upgrade and gets the frames after it', async () => {
    const proxy = await slowPollsDuringUpgrade(svc.broadcast);
    proxies.push(proxy);
    const code = 'SLOWOV';
    const fe = connect(proxy.url, {});
    const errors: string[] = [];
    fe.io.on('open', () => fe.io.engine.on('upgradeError', (err: Error) => errors.push(err.message)));
    fe.on('disconnect', (reason: string) => errors.push(`disconnect ${reason}`));
    const frames: string[] = [];
    fe.on('match_data', (f: string) => frames.push(f));
    await connected(fe);
    const ok = nextEvent(fe, 'logon_success');
    fe.emit('logon', JSON.stringify({ groupCode: code }));
    await ok;
    await pollUntil(() => proxy.held() > 0 || fe.io.engine?.transport?.name === 'websocket', 'the upgrade under way', 10_000);
    await pollUntil(() => fe.io.engine?.transport?.name === 'websocket', `the upgrade (${errors.join(', ')})`, 15_000);
    expect(proxy.held()).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    // A match played after the upgrade reaches the overlay.
    const obs = connect(svc.ingest, { transports: ['websocket'] });
    await connected(obs);
    expect((await logon(obs, 'obs_logon', observerLogon({ key: 'k', groupCode: code }))).ack.value).toBe(true);
    for (let k = 0; k < 50; k++) obs.emit('obs_data', JSON.stringify({ ...replay.records[k], groupCode: code }));
    await pollUntil(() => frames.some((f) => (JSON.parse(f) as { matchId?: string }).matchId), 'a frame of the match on the overlay', 15_000);
    expect(fe.connected).toBe(true);
  }, 45_000);
});
