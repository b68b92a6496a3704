// A LAN venue behind one address (issue 27, point 1; docs/reliability.md, "Connection abuse"):
// 400 real socket.io-client clients with the clients' options (80 observers, each with a match of its
// own, and 320 auxiliary player clients, 4 per match) reach the service through one TCP proxy on
// 127.0.0.1 (helpers/outage-proxy.ts), with the service's default caps. The venue's uplink is cut
// mid-match (client sides reset, service sides silent) and restored: every client is back within
// 30 s, no handshake or connection of the venue is refused, and every match's final frame equals a
// clean run's (the same clients and messages into another service, no cut). The 80 matches differ
// only by group code and match id, so the clean run is one of them (match 0, its observer, its 4
// players' clients, its overlay): each venue match's frame equals it but for those two members,
// whose values are checked on their own (issue 36: a reference of 400 clients cost half the file's
// CPU and proved nothing one match does not). Meanwhile a flood of
// idle and half-sent connections from another loopback address (127.0.0.2) hits all three ports:
// each is refused at once or closed by its deadline, as before.
// The cut is the 30 s cut under the default heartbeat (25 s ping, 20 s to answer), at half
// its time: 15 s with a 12.5 s ping and 10 s to answer (issue 36: no test waits out a real 30 s outage;
// at 0.4, with 8 s to answer, one run of three at a load average of 13 failed before the cut: an
// overlay got no frame, its socket most likely closed by the heartbeat while the test process starved).
// What the length decides keeps its shape: the service pings every held socket into the silence once
// during the cut and closes some of them before the restore, the rest after the clients are back (so
// old and new sockets of a PC are open at once, two per PC against MAX_SOCKETS_PER_ADDRESS); and the
// clients, on their real options (1 s to 5 s backoff), are at their longest backoff by the restore.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Socket } from 'socket.io-client';
import { afterAll, describe, expect, it, onTestFailed } from 'vitest';
import { auxLogon, closeAll, connectObserver, overlay, logon, type Overlay } from '../../helpers/clients.js';
import { scrapeMetrics } from '../../helpers/metrics.js';
import { OutageProxy } from '../../helpers/outage-proxy.js';
import { destroyAll, openRaw, type RawConnection } from '../../helpers/raw-connections.js';
import { recordedMatch, replayLogon } from '../../helpers/recorded.js';
import { spawnService, type ServiceProcess } from '../../helpers/service-process.js';
import { atPace, pollUntil } from '../../helpers/waits.js';

const KEY = 'VENUE-KEY';
const MATCHES = 80;
const AUX_PER_MATCH = 4;
/** The heartbeat and the cut, at half the defaults' 25 s + 20 s and the issue's 30 s. */
const PING_INTERVAL_MS = 12_500;
const PING_TIMEOUT_MS = 10_000;
const OUTAGE_MS = 15_000;
/** Records [0, BEFORE) before the cut (rounds 1–2), [BEFORE, DURING) while cut (round 3), [DURING, END) after (round 4). */
const BEFORE = 301;
const DURING = 441;
const END = 584;
/** The documented deadlines (broadcast 8 s head deadline, uWS 8–12 s) plus slack for a machine this test loads itself (measured: 17.3 s at a load average of 38 on 2 cores). */
const FLOOD_DEADLINE_MS = 22_000;
const FLOOD_FROM = '127.0.0.2';

const replay = recordedMatch();
const groupCode = (i: number) => `VN${i.toString(36).toUpperCase().padStart(4, '0')}`;
const matchId = (i: number) => `c0ffee00-1111-4222-8333-${String(i).padStart(12, '0')}`;
const players = replay.records.filter((r) => r.type === 'roster').slice(0, AUX_PER_MATCH).map((r) => (r.data as { playerId: string; name: string }));
/** Record k of match i: its own group code and game match id (the auxiliary clients join by it). */
const record = (i: number, k: number) => {
  const r = replay.records[k];
  return JSON.stringify({ ...r, groupCode: groupCode(i), ...(r.type === 'match_start' ? { data: matchId(i) } : {}) });
};
const health = (i: number, p: number, value: number) => JSON.stringify({ playerId: players[p].playerId, matchId: matchId(i), type: 'aux_health', data: value });

/** This process's event-loop delay (its clients' heartbeat timers fire late when it starves): named with a failure. */
const loopDelay = monitorEventLoopDelay({ resolution: 20 });
const children: ServiceProcess[] = [];
const flood: RawConnection[] = [];
afterAll(async () => {
  loopDelay.disable();
  closeAll();
  destroyAll(flood);
  for (const c of children) await c.stop('SIGKILL');
});

/** `shards`: the venue's 80 matches on 2 shard workers; the clean run's one match needs one. */
async function start(shards: number): Promise<ServiceProcess> {
  // The default caps (MAX_CONNECTIONS_PER_ADDRESS, MAX_SOCKETS_PER_ADDRESS): the point of the test.
  const svc = await spawnService({
    AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true', LOG_LEVEL: 'warn', SHARD_WORKERS: String(shards),
    PING_INTERVAL_MS: String(PING_INTERVAL_MS), PING_TIMEOUT_MS: String(PING_TIMEOUT_MS),
  });
  children.push(svc);
  return svc;
}

/** The venue's 400 clients against one ingestion URL, and an overlay per match on the broadcast URL. */
class Venue {
  readonly observers: Socket[] = [];
  readonly aux: Socket[][] = [];
  readonly overlays: Overlay[] = [];
  /** Each client's connect_error events: when (ms since epoch) and why. */
  readonly errors: { at: number; message: string }[] = [];
  /** Each client's disconnects: when, why, on which transport, this process's worst event-loop delay by then (named when a logon goes unanswered or a count falls short). */
  readonly drops: { socket: Socket; at: number; reason: string; transport: string; loopDelayMaxMs: number }[] = [];
  /** `matches`: how many of the venue's matches this runs (the reference: the first). */
  constructor(private readonly ingest: string, private readonly broadcast: string, private readonly matches = MATCHES) {}

  get all(): Socket[] { return [...this.observers, ...this.aux.flat()]; }

  /**
   * Each client's engine.io connections as the client saw them (opened, the WebSocket probe's upgrade
   * or its failure, the polling requests, the transport's state at a disconnect), when (ms since the
   * epoch): named for the clients that drop after the restore. It showed this test's failures of
   * session 19: socket.io-client 4.8.1's engine (engine.io-client 6.6) leaves its polling transport
   * paused for good when its probe is closed after the pong, and the service closed probes 8 s after
   * they opened while the storm held the clients' polls longer (now an upgrade gets the heartbeat's
   * span: slow-upgrade.test.ts).
   */
  readonly history = new Map<Socket, { at: number; what: string }[]>();

  private note(s: Socket, what: string): void {
    const h = this.history.get(s) ?? [];
    h.push({ at: Date.now(), what });
    if (h.length > 60) h.splice(0, h.length - 60);
    this.history.set(s, h);
  }

  /** A client's history from `from` on (ms since the epoch), each entry in ms since `from`. */
  historyOf(s: Socket | undefined, from = 0): string[] {
    return (s === undefined ? [] : this.history.get(s) ?? []).filter((h) => h.at >= from).map((h) => `${from ? h.at - from : new Date(h.at).toISOString().slice(11, 23)} ${h.what}`);
  }

  private track(s: Socket): Socket {
    s.on('connect_error', (err: Error) => this.errors.push({ at: Date.now(), message: err.message }));
    s.on('disconnect', (reason: string) => {
      const transport = s.io.engine?.transport as unknown as { name?: string; readyState?: string } | undefined;
      this.note(s, `disconnect ${reason} (${transport?.name ?? 'none'} ${transport?.readyState ?? ''})`);
      this.drops.push({ socket: s, at: Date.now(), reason, transport: transport?.name ?? 'none', loopDelayMaxMs: Math.round(loopDelay.max / 1e6) });
    });
    s.on('connect', () => this.note(s, 'connect'));
    s.io.on('open', () => {
      const engine = s.io.engine;
      this.note(s, `open (${engine.transport.name})`);
      engine.on('upgrading', (t: { name: string }) => this.note(s, `upgrading (${t.name} probe answered; pausing ${engine.transport.name})`));
      engine.on('upgrade', (t: { name: string }) => this.note(s, `upgrade (${t.name})`));
      engine.on('upgradeError', (err: Error) => this.note(s, `upgradeError ${err.message}`));
      // The polling transport's requests, which a pause waits for: a GET's start and return, a POST's end.
      const polling = engine.transport as unknown as { name: string; on(event: string, fn: () => void): void };
      if (polling.name === 'polling') for (const event of ['poll', 'pollComplete', 'drain']) polling.on(event, () => this.note(s, event));
      engine.on('flush', () => { if (engine.transport.name === 'polling') this.note(s, 'flush (a POST sent)'); }); // not each WebSocket send: they would crowd the history out
    });
    return s;
  }

  /** A logon's failure, with the venue's disconnects and connect errors so far (a client that dropped before its ack loses the logon). */
  private named(err: Error): never {
    const drops = this.drops.map(({ socket: _, ...d }) => d);
    throw new Error(`${err.message}; disconnects: ${JSON.stringify(drops)}; connect errors: ${JSON.stringify(this.errors)}; this process's event-loop delay max ${Math.round(loopDelay.max / 1e6)} ms`);
  }

  /** The overlays (in the production truck, not at the venue), 20 at a time. */
  async overlaysOn(): Promise<void> {
    for (let i = 0; i < this.matches; i += 20) this.overlays.push(...await Promise.all(Array.from({ length: Math.min(20, this.matches - i) }, (_, j) => overlay(this.broadcast, groupCode(i + j)))));
    for (const o of this.overlays) {
      o.socket.on('disconnect', (reason: string) => this.note(o.socket, `disconnect ${reason}`));
      o.socket.on('connect', () => this.note(o.socket, 'connect (again: not logged on to its group)'));
    }
  }

  /** Overlay i's wait for a frame, named with its and its observer's state when it fails. */
  async frameOf(i: number, pred: (f: Record<string, unknown>) => boolean, ms: number): Promise<void> {
    const o = this.overlays[i];
    await o.waitFor(pred, ms).catch((err: Error) => {
      const obs = this.observers[i];
      throw new Error(`overlay ${i} (${groupCode(i)}): ${err.message}, connected ${o.socket.connected}, its history ${JSON.stringify(this.historyOf(o.socket))}, ` +
        `its last frame ${(o.raw[o.raw.length - 1] ?? '').slice(0, 300)}; its observer connected ${obs?.connected}, history ${JSON.stringify(this.historyOf(obs))}; ` +
        `overlays without a frame of their match: ${JSON.stringify(this.overlays.flatMap((x, k) => (x.frames.some((f) => f.groupCode === groupCode(k) && f.matchId) ? [] : [k])))}; ` +
        `this process's event-loop delay max ${Math.round(loopDelay.max / 1e6)} ms`);
    });
  }

  async logOn(): Promise<void> {
    const acks = await Promise.all(Array.from({ length: this.matches }, async (_, i) => {
      const s = this.track(connectObserver(this.ingest));
      this.observers[i] = s;
      return (await logon(s, 'obs_logon', replayLogon(replay, { key: KEY, groupCode: groupCode(i) })).catch((err: Error) => this.named(err))).ack;
    }));
    expect(acks.filter((a) => !a.value)).toEqual([]);
    this.send(0, BEFORE);
    // match_start is among them: once each overlay shows its match id, the players' clients can join.
    await Promise.all(this.overlays.map((_, i) => this.frameOf(i, (f) => f.matchId === matchId(i), 60_000)));
  }

  async players(): Promise<void> {
    const acks = await Promise.all(Array.from({ length: this.matches }, (_, i) => Promise.all(players.map(async (p) => {
      const s = this.track(connectObserver(this.ingest));
      (this.aux[i] ??= []).push(s);
      // 320 logons at once through the test's own proxy, beside the flood: in a full suite run one ack took over 15 s.
      return (await logon(s, 'aux_logon', auxLogon({ name: p.name, matchId: matchId(i), playerId: p.playerId }), { ackMs: 60_000 }).catch((err: Error) => this.named(err))).ack;
    }))));
    expect(acks.flat().filter((a) => !a.value)).toEqual([]);
  }

  /** Each observer sends records [from, to) of its match. */
  send(from: number, to: number): void {
    for (let i = 0; i < this.matches; i++) for (let k = from; k < to; k++) this.observers[i].emit('obs_data', record(i, k));
  }

  /** Each player's client sends its health (`value` + its index, so that players differ). */
  health(value: number): void {
    for (let i = 0; i < this.matches; i++) this.aux[i].forEach((s, p) => s.emit('aux_data', health(i, p, value + p)));
  }
}

const received = async (svc: ServiceProcess, event: string) => (await scrapeMetrics(svc.urls.metrics!)).value('ods_messages_received_total', { event });
const backlog = async (svc: ServiceProcess) => (await scrapeMetrics(svc.urls.metrics!)).value('ods_ingest_backlog_messages');

describe('a LAN venue of 400 clients behind one address, through an uplink cut longer than the heartbeat, while another address floods', () => {
  it('every client is back within 30 s of the restore and every match ends like a clean run; the flood is refused or closed', async () => {
    loopDelay.enable();
    const [svc, clean] = await Promise.all([start(2), start(1)]);
    // On a failure: what the venue's service logged (warnings: caps, heartbeats) and its socket and connection counters.
    onTestFailed(async () => {
      console.log(`venue service:\n${svc.out.filter((l) => /"level":(40|50|60)|stderr/.test(l)).join('\n')}`);
      const metrics = await fetch(svc.urls.metrics!).then((r) => r.text()).catch(() => '');
      console.log(`venue service metrics (${metrics.length} bytes):\n` + metrics.split('\n').filter((l) => /^(ods_sockets_closed_total|ods_connections_refused_total|ods_tcp_connections_refused_total|ods_head_timeouts_total|ods_nodejs_eventloop_lag_max_seconds|ods_messages_received_total|ods_ingest_backlog_messages)/.test(l)).join('\n'));
    });
    const proxy = new OutageProxy(svc.ports.ingest);
    const venueUrl = await proxy.start();
    const venue = new Venue(venueUrl, svc.urls.broadcast);
    const reference = new Venue(clean.urls.ingest, clean.urls.broadcast, 1);

    await Promise.all([venue.overlaysOn(), reference.overlaysOn()]);
    // The flood: from another loopback address, on every port, more than the cap at once and more every 2 s,
    // while the venue logs on and until it is back.
    const ports = [svc.ports.ingest, svc.ports.rest, svc.ports.broadcast];
    const wave = async (idle: number, partial: number) => {
      for (const port of ports) flood.push(...await openRaw(port, 'idle', idle, 2000, { localAddress: FLOOD_FROM }), ...await openRaw(port, 'partial', partial, 2000, { localAddress: FLOOD_FROM }));
    };
    let flooding = true;
    const waves = (async () => {
      await wave(1000, 500); // past the cap of 1,000 at once
      await atPace(2000, () => flooding, () => wave(25, 25)); // the flooder's own rhythm
    })();

    // Log on: the venue through the proxy while the flood goes on, the reference directly.
    await Promise.all([venue.logOn(), reference.logOn()]);
    const obsTotal = MATCHES * BEFORE;
    await expect.poll(() => received(svc, 'obs_data'), { timeout: 60_000, interval: 500 }).toBe(obsTotal);
    await Promise.all([venue.players(), reference.players()]);
    venue.health(90);
    reference.health(90);
    const auxBefore = MATCHES * AUX_PER_MATCH;
    await expect.poll(() => received(svc, 'aux_data'), { timeout: 30_000, interval: 500 }).toBe(auxBefore);
    await expect.poll(() => received(clean, 'aux_data'), { timeout: 30_000, interval: 500 }).toBe(AUX_PER_MATCH);
    expect(venue.errors).toEqual([]); // nobody at the venue was refused while logging on
    await expect.poll(() => venue.all.filter((s) => s.io.engine?.transport?.name === 'websocket').length, { timeout: 30_000 }).toBe(400);

    // The cut. Every client sees it at once (its connections are reset).
    const cutAt = Date.now();
    proxy.cut();
    await expect.poll(() => venue.all.filter((s) => s.connected).length, { timeout: 10_000, interval: 100 }).toBe(0);
    // The reference plays the same messages, uncut.
    reference.send(BEFORE, DURING);
    reference.health(50);
    // The game goes on at the venue, in ten steps over the cut (its length against the heartbeat is what is tested):
    // the clients buffer what they emit.
    const steps = 10;
    let step = 0;
    await atPace((OUTAGE_MS - (Date.now() - cutAt)) / steps, () => step < steps, () => {
      venue.send(BEFORE + Math.floor(((DURING - BEFORE) * step) / steps), BEFORE + Math.floor(((DURING - BEFORE) * (step + 1)) / steps));
      if (step === steps / 2) venue.health(50);
      step++;
    });
    expect(proxy.refused).toBeGreaterThan(0); // the clients tried during the cut
    const restoredAt = Date.now();
    proxy.restore();

    // Every client back within 30 s of the restore.
    const back = new Map<Socket, number>();
    for (const s of venue.all) s.once('connect', () => back.set(s, Date.now()));
    // A venue client that loses its connection again after the restore (a loaded machine can starve
    // its heartbeat) may lose what it emitted into the dying transport (socket.io-client does not send
    // it again): such disconnects are named when a count falls short below.
    // Each named with the time since its return, its transport, and this process's worst event-loop
    // delay since the restore (a starved test process fires its clients' heartbeat timers late).
    loopDelay.reset();
    const dropsAfter = () => {
      const after = venue.drops.filter((d) => d.at >= (back.get(d.socket) ?? Infinity));
      const histories = [...new Set(after.map((d) => d.socket))].map((s) => venue.historyOf(s, restoredAt).join(', '));
      return JSON.stringify(after.map((d) => `${d.reason} ${d.at - back.get(d.socket)!} ms after its return (${d.transport}; loop delay max ${d.loopDelayMaxMs} ms)`)) +
        `; their connections, ms since the restore: ${JSON.stringify(histories)}`;
    };
    await expect.poll(() => venue.all.filter((s) => s.connected).length, { timeout: 30_000, interval: 250 }).toBe(400);
    const slowest = Math.max(...back.values()) - restoredAt;
    console.log(`venue: 400 clients back ${slowest} ms after the restore; connect errors after it: ${JSON.stringify(venue.errors.filter((e) => e.at > restoredAt))} (an attempt the cut refused can be reported late on a loaded machine)`);
    expect(slowest).toBeLessThanOrEqual(30_000);
    flooding = false;
    await waves;

    // The rest of the match, then each player's last value.
    venue.send(DURING, END);
    reference.send(DURING, END);
    await expect.poll(() => received(svc, 'obs_data'), { timeout: 60_000, interval: 500 }).toBe(MATCHES * END)
      .catch((err: Error) => { throw new Error(`${err.message}; venue disconnects after the restore: ${dropsAfter()}`); });
    await expect.poll(() => received(clean, 'obs_data'), { timeout: 60_000, interval: 500 }).toBe(END);
    // Received is not applied: the venue's observers come back with their cut's backlog, paced by each
    // socket's budget. The last health values go after it (an observer's scoreboard row sets a
    // player's health too, so what is applied last wins).
    await expect.poll(() => backlog(svc), { timeout: 60_000, interval: 250 }).toBe(0);
    await expect.poll(() => backlog(clean), { timeout: 60_000, interval: 250 }).toBe(0);
    venue.health(7);
    reference.health(7);
    const auxTotal = 3 * MATCHES * AUX_PER_MATCH;
    // As generous as the observers' polls above: beside two CPU hogs one of the 960 had not been counted after 30 s.
    await expect.poll(() => received(svc, 'aux_data'), { timeout: 60_000, interval: 500 }).toBe(auxTotal)
      .catch((err: Error) => { throw new Error(`${err.message}; venue disconnects after the restore: ${dropsAfter()}`); });
    await expect.poll(() => received(clean, 'aux_data'), { timeout: 60_000, interval: 500 }).toBe(3 * AUX_PER_MATCH);

    // Every match's final frame equals the clean run's (frames come in 100 ms cycles: wait for both to
    // settle), all but `serverTime`: the match is still live, so that is each service's clock. The
    // reference is match 0: match i's frame is compared with its group code and match id (checked
    // first) set to match 0's.
    const last = (v: Venue, i: number) => v.overlays[i].raw[v.overlays[i].raw.length - 1].replace(/"serverTime":\d+/, '"serverTime":0');
    const asMatch0 = (i: number) => ({ ...JSON.parse(last(venue, i)) as Record<string, unknown>, groupCode: groupCode(0), matchId: matchId(0) });
    const own = (i: number) => JSON.parse(last(venue, i)) as { groupCode: string; matchId: string };
    const same = (i: number) => JSON.stringify(asMatch0(i)) === JSON.stringify(JSON.parse(last(reference, 0)));
    // Waited for without failing here: the assertions below show which match differs, and how.
    await pollUntil(() => Array.from({ length: MATCHES }, (_, i) => same(i)).every(Boolean), 'the same final frames', 30_000, 500).catch(() => undefined);
    for (let i = 0; i < MATCHES; i++) {
      expect(own(i)).toMatchObject({ groupCode: groupCode(i), matchId: matchId(i) });
      expect(asMatch0(i)).toEqual(JSON.parse(last(reference, 0)));
    }
    expect(last(venue, 0)).toContain('"serverTime":0');
    expect(last(venue, 0)).toContain(matchId(0));
    expect(last(venue, 0)).toBe(last(reference, 0)); // match 0 itself: byte for byte

    const upgradeErrors = venue.all.flatMap((s) => venue.historyOf(s, restoredAt)).filter((h) => h.includes('upgradeError'));
    const onPolling = venue.all.filter((s) => s.io.engine?.transport?.name !== 'websocket').length;
    console.log(`venue: at the end ${400 - onPolling} clients on WebSocket, ${onPolling} not; upgrade errors since the restore: ${JSON.stringify(upgradeErrors)}`);

    // The service refused none of the venue's handshakes, and shed none of its messages.
    const m = await scrapeMetrics(svc.urls.metrics!);
    expect(m.value('ods_connections_refused_total', { listener: 'ingest' })).toBe(0);
    expect(m.value('ods_messages_dropped_total', { reason: 'rate_limited' })).toBe(0);
    // No connection of the venue was closed unanswered (a cap refuses that way), ever.
    expect(proxy.closedUnanswered).toBe(0);

    // The flood: refused at once, or closed by the deadline; none is left open. Refusals on every port.
    await expect.poll(() => flood.filter((c) => c.connected && c.closedAfterMs === null).length, { timeout: 30_000, interval: 500 }).toBe(0);
    const times = flood.filter((c) => c.connected).map((c) => c.closedAfterMs!);
    expect(Math.max(...times)).toBeLessThanOrEqual(FLOOD_DEADLINE_MS);
    const after = await scrapeMetrics(svc.urls.metrics!);
    const refused = ['ingest', 'rest', 'broadcast'].map((listener) => after.value('ods_tcp_connections_refused_total', { listener, reason: 'address' }));
    expect(refused.reduce((a, b) => a + b)).toBeGreaterThan(0);
    console.log(`flood from ${FLOOD_FROM}: ${flood.length} connections, refused at once by port (ingest, rest, broadcast) ${refused.join(', ')}, the rest closed by the deadline; cut ${OUTAGE_MS} ms`);
  }, 240_000);
});
