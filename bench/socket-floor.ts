// bench/socket-floor.ts — the floor under the service's CPU per message: the same sockets and the
// same traffic with none of the service's work. A relay on uWebSockets.js (the service's own
// binding) takes M observer WebSockets that send the recorded match's messages at `--rate` each,
// and F overlay WebSockets per match; every message is answered by one ~230-byte message to each
// of its match's F overlays (what a delta frame is on the wire). No Socket.IO, no parsing, no
// shard, no compression: what is left is the kernel's loopback TCP, epoll, libuv and V8's calls.
//
//   npx tsx bench/socket-floor.ts --matches 50 --rate 3 --duration 20 --pin 0:1
//   npx tsx bench/socket-floor.ts --matches 1500 --rate 3 --duration 20 --pin 0:1 --fanout node
//
// --fanout node: the overlays' sockets on node's http server and ws, as the service's broadcast
// listener has them, each message written as the service writes a frame (one prebuilt WebSocket
// message, broadcast/websocket.ts sendMessage); the observers stay on uWebSockets.js. Set beside the
// default (uws), it is what the fan-out's sockets cost on node against uWebSockets.js: what stage 8
// of docs/perf/message-path.md could save at most.
//
// --frames recorded: each message answered by the match's next whole frame of the recorded match
// (~15 kB of text, src/tools/recorded-frames.ts, each match at its own place in them) instead of
// the 230 bytes; with --compression dedicated (uws only) uWebSockets.js compresses it for each
// overlay with the overlay's own deflate context (DEDICATED_COMPRESSOR, the overlays negotiating
// permessage-deflate): what the fan-out would cost on uWebSockets.js with compression, which has no
// call to send a message compressed once for all (the service's shared deltas).
//
// The relay runs in a child process pinned to core S, this generator on core G (as bench/broadcast.ts
// --pin does). Reports the relay's CPU (all its threads, user and kernel from /proc) per observer
// message and per delivered frame, to set beside bench/broadcast.ts's figures (docs/benchmarks.md,
// issue 20).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket } from 'ws';
import { BroadcastWebSocketServer, type BroadcastWebSocket } from '../src/main/broadcast/websocket.js';
import { wsFrame } from '../src/main/broadcast/ws-frame.js';
import { recordedMatch } from '../src/tools/recorded-match.js';
import { createApp, DEDICATED_COMPRESSOR, DISABLED, listen } from '../src/main/internals/uws.js';
import { recordedFrames } from '../src/tools/recorded-frames.js';
import { opt } from './lib/args.js';
import { jsonLine, machine, table, writeResults } from './lib/report.js';
import { cpuBetween, forkPinnedServer, threadCpu } from './lib/threads.js';

const M = Number(opt('matches', '50'));
const F = Number(opt('overlays', '2'));
const RATE = Number(opt('rate', '3'));
const DURATION = Number(opt('duration', '20'));
const WARMUP = Number(opt('warmup', '5'));
const [SERVICE_CORE, GENERATOR_CORE] = opt('pin', '0:1').split(':');
const FRAME_BYTES = Number(opt('frame-bytes', '230'));
const FANOUT = opt('fanout', 'uws');
if (FANOUT !== 'uws' && FANOUT !== 'node') throw new Error('--fanout: uws or node');
const FRAMES = opt('frames', 'fixed');
if (FRAMES !== 'fixed' && FRAMES !== 'recorded') throw new Error('--frames: fixed or recorded');
const COMPRESSION = opt('compression', 'none');
if (COMPRESSION !== 'none' && (COMPRESSION !== 'dedicated' || FANOUT !== 'uws')) throw new Error('--compression: none, or dedicated with --fanout uws');

if (process.argv[2] === 'relay') {
  // The relay: observer i's message goes to the F overlays of match i.
  // What each match's overlays get: its next frame (the fixed one, or the recorded match's in turn).
  const fixed = Buffer.alloc(FRAME_BYTES, 0x61);
  const recorded = FRAMES === 'recorded' ? recordedFrames().map((f) => Buffer.from(f.frameText)) : [];
  const next = new Map<string, number>();
  const frameOf = (code: string): number => {
    if (FRAMES === 'fixed') return -1;
    const i = next.get(code) ?? Number(code) * 7;
    next.set(code, i + 1);
    return i % recorded.length;
  };
  const bytesOf = (i: number): Buffer => (i < 0 ? fixed : recorded[i]);
  type Overlay = (i: number) => unknown;
  const overlays = new Map<string, Overlay[]>();
  const add = (code: string, send: Overlay) => {
    const list = overlays.get(code) ?? [];
    list.push(send);
    overlays.set(code, list);
  };
  const app = createApp(null);
  app.ws<{ match: string }>('/*', {
    maxPayloadLength: 1 << 20,
    compression: COMPRESSION === 'dedicated' ? DEDICATED_COMPRESSOR : DISABLED,
    maxBackpressure: 64 << 20,
    upgrade: (res, req, context) => {
      res.upgrade({ match: req.getQuery('match') ?? '' }, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
    },
    open: (ws) => {
      const compress = COMPRESSION === 'dedicated';
      if (ws.getUserData().match.startsWith('f')) add(ws.getUserData().match.slice(1), (i) => ws.send(bytesOf(i), false, compress));
    },
    message: (ws) => {
      const code = ws.getUserData().match.slice(1);
      const list = overlays.get(code);
      if (list) {
        const i = frameOf(code);
        for (const send of list) send(i);
      }
    },
  });
  const { port } = await listen(app, '127.0.0.1', 0);
  let fanoutPort = port;
  if (FANOUT === 'node') {
    // The service's way: one message built once (ws-frame.ts) and written whole to each socket.
    const fixedMessage = wsFrame(fixed, false);
    const messages = recorded.map((bytes) => wsFrame(bytes, false));
    const server = http.createServer();
    const wss = new BroadcastWebSocketServer({ server, perMessageDeflate: false });
    wss.on('connection', (ws: BroadcastWebSocket, req) => {
      const match = new URL(req.url ?? '/', 'http://x').searchParams.get('match') ?? '';
      if (match.startsWith('f')) add(match.slice(1), (i) => ws.sendMessage(i < 0 ? fixedMessage : messages[i]));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fanoutPort = (server.address() as AddressInfo).port;
  }
  process.send!({ port, fanoutPort });
} else {
  const { child: relay, port, fanoutPort } = await forkPinnedServer<{ port: number; fanoutPort: number }>(import.meta.url, 'relay', SERVICE_CORE, GENERATOR_CORE);
  const texts = recordedMatch().records.map((r) => `42["obs_data",${JSON.stringify(JSON.stringify(r))}]`);

  let delivered = 0;
  const open = (match: string) => new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${match.startsWith('f') ? fanoutPort : port}/?match=${match}`, { perMessageDeflate: COMPRESSION !== 'none' && match.startsWith('f') });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
  const overlays: WebSocket[] = [];
  for (let m = 0; m < M; m++) for (let f = 0; f < F; f++) {
    const ws = await open(`f${m}`);
    ws.on('message', () => { delivered++; });
    overlays.push(ws);
  }
  const observers: WebSocket[] = [];
  for (let m = 0; m < M; m++) observers.push(await open(`o${m}`));

  // Each observer sends every 1/RATE s, the observers' phases spread evenly (uniform load).
  let sent = 0;
  let next = 0;
  const period = 1000 / RATE;
  const timers = observers.map((ws, m) => setTimeout(() => {
    const tick = () => { ws.send(texts[next++ % texts.length]); sent++; };
    tick();
    timers[m] = setInterval(tick, period);
  }, (m * period) / M));

  await new Promise((r) => setTimeout(r, WARMUP * 1000));
  const cpu0 = threadCpu(relay.pid!);
  const [sent0, delivered0] = [sent, delivered];
  await new Promise((r) => setTimeout(r, DURATION * 1000));
  const { user, kernel } = cpuBetween(cpu0, threadCpu(relay.pid!));
  const messages = sent - sent0;
  const frames = delivered - delivered0;
  const result = {
    M, F, rate: RATE, fanout: FANOUT, frames: FRAMES, compression: COMPRESSION, messagesPerSec: messages / DURATION, framesPerSec: frames / DURATION, delivery: frames / (messages * F),
    cpuPct: ((user + kernel) / DURATION) * 100,
    cpuMicrosPerMessage: ((user + kernel) * 1e6) / messages, userPerMsg: (user * 1e6) / messages, kernelPerMsg: (kernel * 1e6) / messages,
    cpuMicrosPerFrame: ((user + kernel) * 1e6) / frames,
  };
  jsonLine({ bench: 'socket-floor', ...result });
  process.stdout.write('\n' + table([result], ['M', 'fanout', 'frames', 'compression', 'messagesPerSec', 'delivery', 'cpuPct', 'cpuMicrosPerMessage', 'userPerMsg', 'kernelPerMsg', 'cpuMicrosPerFrame']) + '\n');
  writeResults('socket-floor', { bench: 'socket-floor', machine: machine(), options: { M, F, RATE, DURATION, FRAME_BYTES, FANOUT, FRAMES, COMPRESSION, pin: `${SERVICE_CORE}:${GENERATOR_CORE}` }, result });
  for (const t of timers) clearInterval(t);
  for (const ws of [...observers, ...overlays]) ws.terminate();
  relay.kill();
  process.exit(0);
}
