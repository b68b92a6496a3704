// bench/fanout-writes.ts — the cost of one delivery of a shared frame to a WebSocket overlay, the
// way broadcast/server.ts writes it: before (a header Buffer per delivery, ws's Sender.sendFrame with
// [header, payload]: cork, two writes, uncork → one writev) and after (the whole message built once
// per frame, broadcast/ws-frame.ts, one write of the same Buffer to every socket).
//
//   npx tsx bench/fanout-writes.ts [--sockets 100] [--rounds 2000] [--bytes 230]
//
// The overlays are ws clients in a child process that read and discard. Reports CPU µs per
// delivery of the sending loop (this process) for each variant, alternated; run it under
// `strace -f -c -e trace=write,writev` to count the syscalls per delivery.
import { fork } from 'node:child_process';
import { opt } from './lib/args.js';
import { BroadcastWebSocketServer, type BroadcastWebSocket } from '../src/main/broadcast/websocket.js';
import { wsFrame } from '../src/main/broadcast/ws-frame.js';

const SOCKETS = Number(opt('sockets', '100'));
const ROUNDS = Number(opt('rounds', '2000'));
const BYTES = Number(opt('bytes', '230'));
/** One variant only, once (to count its syscalls under strace). */
const ONLY = opt('only', '');

if (process.argv[2] === 'client') {
  const { WebSocket } = await import('ws');
  const url = process.argv[3];
  let open = 0;
  for (let i = 0; i < SOCKETS; i++) {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.on('open', () => { if (++open === SOCKETS) process.send!('ready'); });
    ws.on('message', () => undefined);
  }
} else {
  type Sender = { sendFrame(list: Buffer[]): void };
  const header = (length: number): Buffer => { // the header() broadcast/websocket.ts had before
    const first = 0x80 | 0x01;
    if (length < 126) return Buffer.from([first, length]);
    const b = Buffer.allocUnsafe(4);
    b[0] = first; b[1] = 126; b.writeUInt16BE(length, 2);
    return b;
  };
  const server = new BroadcastWebSocketServer({ port: 0, perMessageDeflate: false });
  await new Promise<void>((r) => server.once('listening', () => r()));
  const sockets: BroadcastWebSocket[] = [];
  server.on('connection', (ws) => sockets.push(ws as BroadcastWebSocket));
  const child = fork(new URL(import.meta.url).pathname, ['client', `ws://127.0.0.1:${(server.address() as { port: number }).port}`, ...process.argv.slice(2)], { execArgv: ['--import', 'tsx'] });
  await new Promise<void>((r) => child.once('message', () => r()));
  const payload = Buffer.alloc(BYTES, 0x61);
  const drain = async () => { while (sockets.some((s) => s.bufferedAmount > 0)) await new Promise((r) => setTimeout(r, 1)); };
  const variants = {
    before: () => { for (const s of sockets) (s as unknown as { _sender: Sender })._sender.sendFrame([header(payload.length), payload]); },
    after: () => { const message = wsFrame(payload, false); for (const s of sockets) s.sendMessage(message); },
  };
  const results: Record<string, number[]> = { before: [], after: [] };
  for (let rep = 0; rep < (ONLY ? 1 : 4); rep++) {
    for (const name of (ONLY ? [ONLY] : ['before', 'after']) as ('before' | 'after')[]) {
      let cpu = 0;
      for (let r = 0; r < ROUNDS; r++) {
        const t0 = process.cpuUsage();
        variants[name]();
        const d = process.cpuUsage(t0);
        cpu += d.user + d.system;
        if (r % 20 === 19) await drain();
      }
      results[name].push(cpu / (ROUNDS * SOCKETS));
    }
  }
  for (const [name, v] of Object.entries(results)) if (v.length) console.log(JSON.stringify({ variant: name, cpuMicrosPerDelivery: v.map((x) => +x.toFixed(2)) }));
  child.kill();
  server.close();
  process.exit(0);
}
