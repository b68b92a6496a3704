// bench:ingest-parser — one process, no network: the ingestion listener's Socket.IO parser
// (src/main/sockets/ingest-parser.ts) against socket-io-parser's Decoder, on the recorded match's
// messages as the Spectra observer sends them (`2["obs_data","<JSON text>"]`) and as objects.
// Then the shard's depth check (protocol/json-depth.ts) on the same payloads.
//
//   npx tsx bench/ingest-parser.ts [--rounds 5]
import { Decoder, Encoder, PacketType, type Packet } from 'socket.io-parser';
import { ingestParser } from '#built/main/sockets/ingest-parser.js';
import { jsonDepthExceeds, valueDepthExceeds } from '#built/protocol/json-depth.js';
import { recordedMatch } from '#built/tools/recorded-match.js';
import { opt } from './lib/args.js';

const ROUNDS = Number(opt('rounds', '5'));
const envelopes = recordedMatch().records.map((r) => ({ obsName: 'Bench', groupCode: 'ABC123', ...r }));
const encoder = new Encoder();
const asString = envelopes.map((e) => encoder.encode({ type: PacketType.EVENT, nsp: '/', data: ['obs_data', JSON.stringify(e)] })[0] as string);
const asObject = envelopes.map((e) => encoder.encode({ type: PacketType.EVENT, nsp: '/', data: ['obs_data', e] })[0] as string);
const IngestDecoder = ingestParser(['obs_logon', 'aux_logon', 'obs_data', 'aux_data']).Decoder;

function decodeAll(decoder: Decoder, packets: string[], then?: (payload: unknown) => void): number {
  let n = 0;
  decoder.on('decoded', (p: Packet) => { n++; then?.((p.data as unknown[])[1]); });
  const t = process.cpuUsage();
  for (let k = 0; k < 20; k++) for (const p of packets) decoder.add(p);
  const c = process.cpuUsage(t);
  if (n !== packets.length * 20) throw new Error('not every packet decoded');
  return (c.user + c.system) / n;
}

function depthAll(texts: string[], check: (t: string) => boolean): number {
  const t = process.cpuUsage();
  let x = 0;
  for (let k = 0; k < 20; k++) for (const s of texts) if (check(s)) x++;
  const c = process.cpuUsage(t);
  if (x !== 0) throw new Error('a recorded message is too deep?');
  return (c.user + c.system) / (texts.length * 20);
}

/** The scan alone (what jsonDepthExceeds did for every message before the bracket count). */
function scanOnly(text: string, max = 32): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) { if (c === 92) i++; else if (c === 34) inString = false; }
    else if (c === 34) inString = true;
    else if (c === 123 || c === 91) { if (++depth > max) return true; }
    else if (c === 125 || c === 93) depth--;
  }
  return false;
}

const texts = envelopes.map((e) => JSON.stringify(e));
const rows: Record<string, number[]> = { 'socket-io-parser, string payload': [], 'ingest parser, string payload': [], 'socket-io-parser, object payload': [], 'ingest parser, object payload': [], 'before: object decoded + checked + re-encoded': [], 'depth: full scan': [], 'depth: bracket count first': [] };
for (let r = 0; r < ROUNDS; r++) {
  rows['socket-io-parser, string payload'].push(decodeAll(new Decoder(), asString));
  rows['ingest parser, string payload'].push(decodeAll(new IngestDecoder(), asString));
  rows['socket-io-parser, object payload'].push(decodeAll(new Decoder(), asObject));
  rows['ingest parser, object payload'].push(decodeAll(new IngestDecoder(), asObject));
  // What the main thread did with an object payload before: decoded, depth-checked, re-encoded for the shard.
  rows['before: object decoded + checked + re-encoded'].push(decodeAll(new Decoder(), asObject, (v) => { if (!valueDepthExceeds(v)) JSON.stringify(v); }));
  rows['depth: full scan'].push(depthAll(texts, (t) => scanOnly(t)));
  rows['depth: bracket count first'].push(depthAll(texts, (t) => jsonDepthExceeds(t)));
}
process.stdout.write(`${envelopes.length} recorded messages, avg ${(texts.reduce((a, t) => a + t.length, 0) / texts.length).toFixed(0)} chars; µs CPU per message, ${ROUNDS} rounds (min / median)\n`);
for (const [name, v] of Object.entries(rows)) {
  const s = [...v].sort((a, b) => a - b);
  process.stdout.write(`${name.padEnd(46)} ${s[0].toFixed(2).padStart(6)} / ${s[Math.floor(s.length / 2)].toFixed(2).padStart(6)}\n`);
}
