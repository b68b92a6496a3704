// bench/frame-post.ts — what one frame costs to cross from a shard to the main thread, with and
// without its frame text (ShardOut.frameTexts): postMessage of a shard output holding K frames (the recorded
// match's frames, ~15.6 KB of text and a ~230 B delta each) through a MessageChannel, serialization
// on the posting side and deserialization on the receiving side both counted (one process: the
// receiver runs in the same thread, so the sum is what the two threads pay together).
//
//   npx tsx bench/frame-post.ts [--frames 5] [--outputs 500]   (after npm run build)
import { MessageChannel } from 'node:worker_threads';
import { opt } from './lib/args.js';
import { recordedFrames } from '#built/tools/recorded-frames.js';

const K = Number(opt('frames', '5'));
const OUTPUTS = Number(opt('outputs', '500'));
const frames = recordedFrames();

function output(i: number, withText: boolean) {
  const codes: string[] = [], frameNos: number[] = [], frameTexts: (string | null)[] = [], sizes: number[] = [], deltas: (string | null)[] = [];
  for (let k = 0; k < K; k++) {
    const f = frames[(i * K + k) % (frames.length - 1) + 1];
    codes.push(`CODE${k}`); frameNos.push(i); frameTexts.push(withText ? f.frameText : null); sizes.push(f.frameText.length); deltas.push(f.delta);
  }
  return { codes, frameNos, frameTexts, sizes, deltas, events: [] };
}

async function run(withText: boolean): Promise<number> {
  const { port1, port2 } = new MessageChannel();
  let got = 0;
  const done = new Promise<void>((r) => port2.on('message', () => { if (++got === OUTPUTS) r(); }));
  const outs = Array.from({ length: OUTPUTS }, (_, i) => output(i, withText));
  const t0 = process.cpuUsage();
  for (const o of outs) port1.postMessage(o);
  await done;
  const d = process.cpuUsage(t0);
  port1.close();
  return (d.user + d.system) / (OUTPUTS * K);
}

const results: Record<string, number[]> = { withText: [], withoutText: [] };
for (let rep = 0; rep < 8; rep++) {
  results.withText.push(await run(true));
  results.withoutText.push(await run(false));
}
for (const [k, v] of Object.entries(results)) console.log(JSON.stringify({ variant: k, cpuMicrosPerFrame: v.map((x) => +x.toFixed(2)) }));
