// bench/socket-floor.ts — the floor under the service's CPU per message: the same sockets and the
// same traffic with none of the service's work. A relay on uWebSockets.js (the service's own
// binding) takes M observer WebSockets that send the recorded match's messages at `--rate` each,
// and F overlay WebSockets per match; every message is answered by one ~230-byte message to each
// of its match's F overlays (what a delta frame is on the wire). No Socket.IO, no parsing, no
// shard, no compression: what is left is the kernel's loopback TCP, epoll, libuv and V8's calls.
//
//   npx tsx bench/socket-floor.ts --matches 50 --rate 3 --duration 20 --pin 0:1
//
// The relay runs in a child process pinned to core S, this generator on core G (as bench/broadcast.ts
// --pin does). Reports the relay's CPU (all its threads, user and kernel from /proc) per observer
// message and per delivered frame, to set beside bench/broadcast.ts's figures (docs/benchmarks.md,
// issue 20).
import { WebSocket } from 'ws';
import { recordedMatch } from '../src/tools/recorded-match.js';
import { createApp, listen } from '../src/main/internals/uws.js';
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

if (process.argv[2] === 'relay') {
  // The relay: observer i's message goes to the F overlays of match i.
  const frame = Buffer.alloc(FRAME_BYTES, 0x61);
  const overlays = new Map<string, import('uWebSockets.js').WebSocket<{ match: string }>[]>();
  const app = createApp(null);
  app.ws<{ match: string }>('/*', {
    maxPayloadLength: 1 << 20,
    upgrade: (res, req, context) => {
      res.upgrade({ match: req.getQuery('match') ?? '' }, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
    },
    open: (ws) => {
      if (ws.getUserData().match.startsWith('f')) {
        const code = ws.getUserData().match.slice(1);
        const list = overlays.get(code) ?? [];
        list.push(ws);
        overlays.set(code, list);
      }
    },
    message: (ws) => {
      const list = overlays.get(ws.getUserData().match.slice(1));
      if (list) for (const f of list) f.send(frame, false);
    },
  });
  const { port } = await listen(app, '127.0.0.1', 0);
  process.send!({ port });
} else {
  const { child: relay, port } = await forkPinnedServer(import.meta.url, 'relay', SERVICE_CORE, GENERATOR_CORE);
  const texts = recordedMatch().records.map((r) => `42["obs_data",${JSON.stringify(JSON.stringify(r))}]`);

  let delivered = 0;
  const open = (match: string) => new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/?match=${match}`, { perMessageDeflate: false });
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
    M, F, rate: RATE, messagesPerSec: messages / DURATION, framesPerSec: frames / DURATION, delivery: frames / (messages * F),
    cpuPct: ((user + kernel) / DURATION) * 100,
    cpuMicrosPerMessage: ((user + kernel) * 1e6) / messages, userPerMsg: (user * 1e6) / messages, kernelPerMsg: (kernel * 1e6) / messages,
    cpuMicrosPerFrame: ((user + kernel) * 1e6) / frames,
  };
  jsonLine({ bench: 'socket-floor', ...result });
  process.stdout.write('\n' + table([result], ['M', 'messagesPerSec', 'delivery', 'cpuPct', 'cpuMicrosPerMessage', 'userPerMsg', 'kernelPerMsg', 'cpuMicrosPerFrame']) + '\n');
  writeResults('socket-floor', { bench: 'socket-floor', machine: machine(), options: { M, F, RATE, DURATION, FRAME_BYTES, pin: `${SERVICE_CORE}:${GENERATOR_CORE}` }, result });
  for (const t of timers) clearInterval(t);
  for (const ws of [...observers, ...overlays]) ws.terminate();
  relay.kill();
  process.exit(0);
}
