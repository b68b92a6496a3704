// What socket.io's per-event dispatch costs per hot event, and what the direct path (issue 28,
// src/main/ingest/direct-path.ts) costs instead, in one process: a real socket.io Server with the
// ingestion listener's parser and one real socket.io-client connection; the server side's
// connection decoder is fed the recorded match's `2["obs_data","…"]` packets, one per macrotask
// (as sockets deliver them: the ticks drain between two), and CPU time (process.cpuUsage) per packet is
// read for three ways of taking them to a listener that counts them:
// - socketio: the decoder emits each packet to socket.io (Client.ondecoded → Socket._onpacket →
//   onevent → dispatch → EventEmitter), as for a socket not logged on;
// - direct: the decoder hands it to a sink that delivers it with socket.io's timing
//   (internals/socketio.ts), as for a logged-on socket;
// - decode only: the sink counts it at once (the decoder and the loop alone: the floor both
//   include; direct minus this is what socket.io's two ticks cost, which the direct path keeps for
//   its order and its drop-after-close; a synchronous hand-over would cost nothing more than this).
// Rounds alternate the three; medians are printed.
//
//   npm run build && npx tsx bench/dispatch-cost.ts [--packets 20000] [--rounds 5]
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket } from 'socket.io';
import { io as connect } from 'socket.io-client';
import { Encoder, PacketType } from 'socket.io-parser';
import { connectionDecoder, dispatchLikeSocketIo } from '#built/main/internals/socketio.js';
import { IngestDecoder, ingestParser } from '#built/main/sockets/ingest-parser.js';
import { recordedMatch } from '#built/tools/recorded-match.js';
import { opt } from './lib/args.js';
import { jsonLine, table } from './lib/report.js';

const PACKETS = Number(opt('packets', '20000'));
const ROUNDS = Number(opt('rounds', '5'));
const encoder = new Encoder();
const packets = recordedMatch().records.map((r) => encoder.encode({ type: PacketType.EVENT, nsp: '/', data: ['obs_data', JSON.stringify({ obsName: 'Bench', groupCode: 'ABC123', ...r })] })[0] as string);

const httpServer = http.createServer();
const io = new Server(httpServer, { parser: ingestParser(['obs_logon', 'aux_logon', 'obs_data', 'aux_data']) });
const joined = new Promise<Socket>((resolve) => io.once('connection', resolve));
await new Promise<void>((r) => httpServer.listen(0, '127.0.0.1', r));
const client = connect(`http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`, { transports: ['websocket'] });
const socket = await joined;
const decoder = connectionDecoder(socket) as IngestDecoder;
if (!(decoder instanceof IngestDecoder)) throw new Error('not the ingestion decoder');

let received = 0;
socket.on('obs_data', () => { received++; });
const deliver = () => { received++; };
const MODES = {
  socketio: null,
  direct: (event: string, payload: unknown) => { dispatchLikeSocketIo(socket, deliver, event, payload); return true; },
  'decode only': () => { received++; return true; },
} as const;

/** CPU µs per packet of `mode`, PACKETS packets one per macrotask. */
function measure(mode: keyof typeof MODES): Promise<number> {
  decoder.hot = MODES[mode];
  received = 0;
  let i = 0;
  return new Promise((resolve) => {
    const t = process.cpuUsage();
    const step = () => {
      if (i < PACKETS) {
        decoder.add(packets[i++ % packets.length]);
        setImmediate(step);
        return;
      }
      const c = process.cpuUsage(t);
      if (received !== PACKETS) throw new Error(`${mode}: ${received} of ${PACKETS} delivered`);
      resolve((c.user + c.system) / PACKETS);
    };
    setImmediate(step);
  });
}

const runs: Record<string, number[]> = Object.fromEntries(Object.keys(MODES).map((m) => [m, []]));
await measure('socketio'); // warm-up
await measure('direct');
for (let r = 0; r < ROUNDS; r++) for (const mode of Object.keys(MODES) as (keyof typeof MODES)[]) runs[mode].push(await measure(mode));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const floor = median(runs['decode only']);
const rows = Object.entries(runs).map(([mode, xs]) => ({ mode, usPerPacket: +median(xs).toFixed(3), aboveDecodeOnly: +(median(xs) - floor).toFixed(3), rounds: xs.map((x) => x.toFixed(2)).join(' ') }));
for (const row of rows) jsonLine({ bench: 'dispatch-cost', ...row });
process.stdout.write('\n' + table(rows, ['mode', 'usPerPacket', 'aboveDecodeOnly', 'rounds']) + '\n');
client.close();
await new Promise((r) => io.close(() => r(undefined)));
