// The doors to library internals (src/main/internals/, uws.ts among them): each was written for one
// version of its library, the one package-lock.json pins. An upgrade fails here first, naming the
// module to re-read, and the behavioural checks below show on real servers, sockets and decoders
// that every internal the doors reach is still there and still means the same.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Server, type Socket } from 'socket.io';
import { io as connect, Manager, type Socket as ClientSocket } from 'socket.io-client';
import { Decoder, type Packet } from 'socket.io-parser';
import * as wsLibrary from 'ws';
import { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import * as engineio from '../../../src/main/internals/engineio.js';
import * as ingestLane from '../../../src/main/internals/ingest-lane.js';
import * as socketio from '../../../src/main/internals/socketio.js';
import * as socketioParser from '../../../src/main/internals/socketio-parser.js';
import * as ws from '../../../src/main/internals/ws.js';
import * as uws from '../../../src/main/internals/uws.js';
import * as clientDoor from '../../helpers/internals/socketio-client.js';
import * as wsDoor from '../../helpers/internals/ws.js';

/** ws's Sender class (exported at run time, not in @types/ws). */
const { Sender } = wsLibrary as unknown as { Sender: { prototype: object; new (...args: never[]): object } };

const ROOT = path.resolve(import.meta.dirname, '../../..');
const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as Record<string, unknown>;

const DOORS: Array<[string, { package: string; version: string }]> = [
  ['src/main/internals/socketio.ts', socketio.WRITTEN_FOR],
  ['src/main/internals/engineio.ts', engineio.WRITTEN_FOR],
  ['src/main/internals/ws.ts', ws.WRITTEN_FOR],
  ['src/main/internals/socketio-parser.ts', socketioParser.WRITTEN_FOR],
  ['src/main/internals/uws.ts', uws.WRITTEN_FOR],
  ...ingestLane.WRITTEN_FOR.map((w): [string, { package: string; version: string }] => ['src/main/internals/ingest-lane.ts', w]),
  // The tests' own doors (test/helpers/internals/), pinned the same way.
  ...clientDoor.WRITTEN_FOR.map((w): [string, { package: string; version: string }] => ['test/helpers/internals/socketio-client.ts', w]),
  ['test/helpers/internals/ws.ts', wsDoor.WRITTEN_FOR],
];

describe('each door was written for the version package-lock.json pins and node_modules holds', () => {
  const lock = readJson('package-lock.json') as { packages: Record<string, { version?: string }> };
  it.each(DOORS)('%s', (module, written) => {
    const locked = lock.packages[`node_modules/${written.package}`]?.version;
    const installed = readJson(`node_modules/${written.package}/package.json`).version;
    const why = (what: string, v: unknown) => `${written.package} ${what} is ${String(v)}, but ${module} was written for ${written.version}: re-read ${module} against ${written.package} ${String(v)} (its header says what it reaches into), then update its WRITTEN_FOR`;
    expect(locked, why('in package-lock.json', locked)).toBe(written.version);
    expect(installed, why('in node_modules', installed)).toBe(written.version);
  });

  it('no other module of src/ reaches into these internals', () => {
    const INTERNALS = /\b_sender\b|\bwriteBuffer\b|\breconstructor\b|\{ pid\?: string \}|conn\.transport as|\bpingTimeoutTimer\b|\bhasRefreshedPingTimeout\b|\.onData = /;
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (p.endsWith('.ts') && !p.includes(`${path.sep}internals${path.sep}`) && INTERNALS.test(fs.readFileSync(p, 'utf8').replace(/^\s*(\/\/|\*).*$/gm, ''))) offenders.push(path.relative(ROOT, p));
      }
    };
    walk(path.join(ROOT, 'src'));
    expect(offenders, 'library internals are reached through src/main/internals/ only').toEqual([]);
  });

  it("no test reaches into socket.io-client's or ws's internals but through test/helpers/internals/", () => {
    const INTERNALS = /\b_pid\b|\b_lastOffset\b|\b_socket\b|\.transport as unknown as \{ ws/;
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (p.endsWith('.ts') && !p.includes(`helpers${path.sep}internals${path.sep}`) && p !== import.meta.filename && INTERNALS.test(fs.readFileSync(p, 'utf8').replace(/^\s*(\/\/|\*).*$/gm, ''))) offenders.push(path.relative(ROOT, p));
      }
    };
    walk(path.join(ROOT, 'test'));
    expect(offenders).toEqual([]);
  });
});

describe('the internals are there', () => {
  const servers: Server[] = [];
  const clients: ClientSocket[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.disconnect();
    for (const s of servers.splice(0)) await new Promise((r) => s.close(() => r(undefined)));
  });

  /** A socket.io server on an ephemeral port (recovery on or off), and its sockets as they connect. */
  async function server(recovery: boolean): Promise<{ url: string; sockets: Socket[]; io: Server }> {
    const httpServer = http.createServer();
    const io = new Server(httpServer, recovery ? { connectionStateRecovery: { maxDisconnectionDuration: 60_000 } } : {});
    servers.push(io);
    const sockets: Socket[] = [];
    io.on('connection', (s) => sockets.push(s));
    await new Promise<void>((r) => httpServer.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`, sockets, io };
  }
  function client(url: string, transports: string[]): ClientSocket {
    const c = connect(url, { transports, reconnectionDelay: 50, reconnectionDelayMax: 200 });
    clients.push(c);
    return c;
  }

  it("socket.io's pid: the session id a reconnecting client presents (recovery on), none without recovery", async () => {
    const on = await server(true);
    const c = client(on.url, ['websocket']);
    await expect.poll(() => on.sockets.length).toBe(1);
    const pid = socketio.sessionPid(on.sockets[0]);
    expect(typeof pid).toBe('string');
    expect(pid!.length).toBeGreaterThan(0);
    expect(pid).not.toBe(on.sockets[0].id);
    // The client presents its pid and the offset of the last packet it got (a recovered session
    // needs one), after a transport drop.
    const hello = new Promise((r) => c.once('hello', r));
    on.io.emit('hello', 1);
    await hello;
    c.io.engine.close();
    await expect.poll(() => on.sockets.length).toBe(2);
    expect(on.sockets[1].recovered).toBe(true);
    expect(socketio.sessionPid(on.sockets[1])).toBe(pid);

    const off = await server(false);
    client(off.url, ['websocket']);
    await expect.poll(() => off.sockets.length).toBe(1);
    expect(socketio.sessionPid(off.sockets[0])).toBeUndefined();
  });

  it("engine.io's transport (ws's WebSocket under 'websocket') and write buffer (an array); ws's Sender writes a whole frame", async () => {
    const { url, sockets } = await server(false);
    const overWs = client(url, ['websocket']);
    const polling = client(url, ['polling']);
    await expect.poll(() => sockets.length).toBe(2);
    const [wsSide, pollingSide] = sockets[0].conn.transport.name === 'websocket' ? sockets : [sockets[1], sockets[0]];

    const t = engineio.transportOf(wsSide.conn);
    expect(t.name).toBe('websocket');
    expect(t.socket).toBeInstanceOf(WebSocket);
    expect(Array.isArray((wsSide.conn as unknown as { writeBuffer: unknown }).writeBuffer)).toBe(true);
    expect(engineio.writeBufferLength(wsSide.conn)).toBe(0);
    const p = engineio.transportOf(pollingSide.conn);
    expect(p.name).toBe('polling');
    expect(p.socket).toBeUndefined();
    // A polling connection's packets wait in the write buffer until the client polls.
    expect(engineio.writeBufferLength(pollingSide.conn)).toBeGreaterThanOrEqual(0);
    for (let i = 0; i < 5; i++) pollingSide.emit('x', i);
    expect(engineio.writeBufferLength(pollingSide.conn)).toBeGreaterThan(0);

    // ws: the Sender, its sendFrame, and a whole message (FIN, text, unmasked) written through it
    // arriving as a socket.io event.
    const socket = t.socket as WebSocket;
    expect((socket as unknown as { _sender: unknown })._sender).toBeInstanceOf(Sender);
    expect(typeof (Sender.prototype as unknown as { sendFrame: unknown }).sendFrame).toBe('function');
    const payload = Buffer.from('42["raw","written whole"]');
    const got = new Promise((r) => overWs.once('raw', r));
    ws.sendWholeFrame(socket, Buffer.concat([Buffer.from([0x81, payload.length]), payload]));
    expect(await got).toBe('written whole');
    void polling;
  });

  it("the tests' doors: socket.io-client's pid and last offset, engine.io-client's ws, ws's TCP socket", async () => {
    const on = await server(true);
    const c = client(on.url, ['websocket']);
    await expect.poll(() => on.sockets.length).toBe(1);
    await new Promise<void>((r) => (c.connected ? r() : c.once('connect', () => r())));
    // The pid the client holds is the one the server issued.
    expect(clientDoor.sessionPid(c)).toBe(socketio.sessionPid(on.sockets[0]));
    const hello = new Promise((r) => c.once('hello', r));
    on.io.emit('hello', 1);
    await hello;
    expect(typeof clientDoor.lastOffset(c)).toBe('string');
    clientDoor.setLastOffset(c, 'bogus');
    expect(clientDoor.lastOffset(c)).toBe('bogus');
    // Under 'websocket': a ws WebSocket, and a net.Socket under it whose destruction drops the transport.
    await expect.poll(() => c.io.engine.transport.name).toBe('websocket');
    const socket = clientDoor.webSocketOf(c)!;
    expect(socket).toBeInstanceOf(WebSocket);
    const tcp = wsDoor.tcpOf(socket);
    expect(tcp).toBeInstanceOf(net.Socket);
    const down = new Promise((r) => c.once('disconnect', r));
    tcp.destroy();
    expect(await down).toBe('transport close');
    const polling = client(on.url, ['polling']);
    await new Promise<void>((r) => (polling.connected ? r() : polling.once('connect', () => r())));
    expect(clientDoor.webSocketOf(polling)).toBeUndefined();
  });

  it("socket-io-parser's reconstructor: set while a binary packet's attachments are awaited", () => {
    const decoder = new Decoder();
    const decoded: Packet[] = [];
    decoder.on('decoded', (packet: Packet) => decoded.push(packet));
    expect(socketioParser.reconstructing(decoder)).toBe(false);
    decoder.add('51-["bin",{"_placeholder":true,"num":0}]');
    expect(socketioParser.reconstructing(decoder)).toBe(true);
    expect(() => decoder.add('2["obs_data","x"]')).toThrow(); // a text packet now is socket-io-parser's to refuse
    decoder.add(Buffer.from([1, 2, 3]));
    expect(socketioParser.reconstructing(decoder)).toBe(false);
    expect(decoded).toHaveLength(1);
  });

  it("the ingestion lane: engine.io's transport onData, its socket's ping timeout fields, socket.io's decoder; refused packets and polling go the libraries' way", async () => {
    // As the ingestion listener runs: socket.io on a uWS app.
    const app = uws.createApp(null);
    const io = new Server({ transports: ['polling', 'websocket'] }); // the default heartbeat: no ping within the test
    io.attachApp(app);
    const listening = await uws.listen(app, '127.0.0.1', 0);
    const taken: Array<{ socket: string; packet: string }> = [];
    const theirWay: Array<{ socket: string; payload: unknown }> = [];
    const sockets: Socket[] = [];
    io.on('connection', (s) => {
      sockets.push(s);
      s.on('hot', (payload: unknown) => theirWay.push({ socket: s.id, payload }));
      ingestLane.ingestLane(s, (packet) => {
        if (!packet.startsWith('2["hot","lane')) return false;
        taken.push({ socket: s.id, packet });
        return true;
      });
    });
    try {
      const url = `http://127.0.0.1:${listening.port}`;
      const overWs = client(url, ['websocket']);
      const polling = client(url, ['polling']);
      const upgrading = client(url, ['polling', 'websocket']);
      await expect.poll(() => sockets.length).toBe(3);
      await expect.poll(() => upgrading.io.engine.transport.name).toBe('websocket');
      const [wsSide, pollingSide, upgradedSide] = [overWs, polling, upgrading].map((c) => sockets.find((s) => s.id === c.id)!);
      for (const s of sockets) {
        const conn = s.conn as unknown as { pingTimeoutTimer: unknown; hasRefreshedPingTimeout: unknown };
        expect(conn.pingTimeoutTimer).toBeNull(); // no ping yet
        expect(conn.hasRefreshedPingTimeout).toBe(false);
        // socket.io's own copy of socket-io-parser (a Decoder of another module instance than this file's)
        const decoder = (s.client as unknown as { decoder: Decoder }).decoder;
        expect([decoder.constructor.name, typeof decoder.add, socketioParser.reconstructing(decoder)]).toEqual(['Decoder', 'function', false]);
      }

      // Over WebSocket (from the start, or after an upgrade): taken from the transport's text, in each
      // socket's order (two connections' packets reach the server in either order).
      overWs.emit('hot', 'lane 1');
      overWs.emit('hot', 'other');
      overWs.emit('hot', 'lane 2');
      upgrading.emit('hot', 'lane 3');
      polling.emit('hot', 'lane 4'); // long-polling: the libraries' way
      await expect.poll(() => taken.length + theirWay.length).toBe(5);
      const of = <T extends { socket: string }>(list: T[], s: Socket) => list.filter((x) => x.socket === s.id);
      expect(of(taken, wsSide)).toEqual([{ socket: wsSide.id, packet: '2["hot","lane 1"]' }, { socket: wsSide.id, packet: '2["hot","lane 2"]' }]);
      expect(of(taken, upgradedSide)).toEqual([{ socket: upgradedSide.id, packet: '2["hot","lane 3"]' }]);
      expect(taken).toHaveLength(3);
      expect(of(theirWay, wsSide)).toEqual([{ socket: wsSide.id, payload: 'other' }]);
      expect(of(theirWay, pollingSide)).toEqual([{ socket: pollingSide.id, payload: 'lane 4' }]);
      expect(theirWay).toHaveLength(2);

      // engine.io's heartbeat: while a pong is awaited (from its ping, engine.io holds the timer that
      // ends the connection, not refreshed yet) a data packet stretches the wait once. engine.io's
      // own way does it (the first round: a packet the lane refuses) and the lane does the same. (The
      // state is set here, as a ping sets it: a real pong comes back within a millisecond.)
      const conn = wsSide.conn as unknown as { pingTimeoutTimer: NodeJS.Timeout | null; hasRefreshedPingTimeout: boolean };
      for (const [text, way] of [['other 2', theirWay], ['lane 5', taken]] as const) {
        let refreshed = 0;
        const waiting = setTimeout(() => {}, 60_000);
        const refresh = waiting.refresh.bind(waiting);
        waiting.refresh = () => { refreshed++; return refresh(); };
        conn.pingTimeoutTimer = waiting;
        conn.hasRefreshedPingTimeout = false;
        const before = way.length;
        overWs.emit('hot', text);
        await expect.poll(() => way.length).toBe(before + 1);
        expect([refreshed, conn.hasRefreshedPingTimeout]).toEqual([1, true]);
        overWs.emit('hot', text);
        await expect.poll(() => way.length).toBe(before + 2);
        expect(refreshed).toBe(1); // once per ping
        clearTimeout(waiting);
        conn.pingTimeoutTimer = null;
      }
    } finally {
      io.close();
      uws.closeListen(listening.token);
    }
  });

  it("the ingestion lane: a client that leaves the namespace and joins it again over the same connection has one lane, pointed at its new socket", async () => {
    const app = uws.createApp(null);
    const io = new Server({ transports: ['websocket'] });
    io.attachApp(app);
    io.of('/second'); // the client's socket there keeps its connection open while it leaves '/'
    const listening = await uws.listen(app, '127.0.0.1', 0);
    const taken: string[] = [];
    const theirWay: string[] = [];
    const sockets: Socket[] = [];
    io.on('connection', (s) => {
      sockets.push(s);
      s.on('hot', (payload: unknown) => theirWay.push(`${s.id} ${String(payload)}`));
      ingestLane.ingestLane(s, (packet) => {
        if (!packet.startsWith('2["hot","lane')) return false;
        taken.push(`${s.id} ${packet}`);
        return true;
      });
    });
    const manager = new Manager(`http://127.0.0.1:${listening.port}`, { transports: ['websocket'], reconnection: false });
    const second = manager.socket('/second');
    const root = manager.socket('/');
    try {
      await expect.poll(() => root.connected && second.connected).toBe(true);
      const conn = sockets[0].conn as unknown as { transport: { onData: unknown }; listenerCount(event: string): number };
      const onData = conn.transport.onData;
      const upgradeListeners = conn.listenerCount('upgrade');
      for (let i = 1; i <= 3; i++) {
        root.disconnect();
        await expect.poll(() => sockets[i - 1].connected).toBe(false);
        root.connect();
        await expect.poll(() => sockets.length).toBe(i + 1);
        expect(sockets[i].conn).toBe(sockets[0].conn); // the same engine.io connection
        expect([conn.transport.onData, conn.listenerCount('upgrade')]).toEqual([onData, upgradeListeners]); // not wrapped again
        await expect.poll(() => root.connected).toBe(true);
        root.emit('hot', `lane ${i}`);
        await expect.poll(() => taken.length).toBe(i);
        expect(taken[i - 1]).toBe(`${sockets[i].id} 2["hot","lane ${i}"]`); // the new socket's lane
      }
      expect(theirWay).toEqual([]);
    } finally {
      root.disconnect();
      second.disconnect();
      io.close();
      uws.closeListen(listening.token);
    }
  });

  it("uWebSockets.js: the compressor constants exist at run time, an exclusive listen refuses a second listener", async () => {
    expect(typeof uws.DISABLED).toBe('number');
    expect(typeof uws.SHARED_COMPRESSOR).toBe('number');
    const first = await uws.listen(uws.createApp(null), '127.0.0.1', 0);
    try {
      expect(first.port).toBeGreaterThan(0);
      await expect(uws.listen(uws.createApp(null), '127.0.0.1', first.port)).rejects.toThrow(/cannot listen/);
    } finally {
      uws.closeListen(first.token);
    }
  });
});
