// The load generator's side of a burst timeline (`bench/broadcast.ts --timeline FILE`; the service's
// side is lib/burst-probe.mjs, bench/burst-report.ts joins them): per 100 ms bin of the wall clock,
// the observer messages sent, the frames received, the generator's own event-loop utilization and
// longest delay and its CPU (the generator must not be what limits), and every latency probe with
// its send and receive times (same process, same clock).
import fs from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

interface Bin { sent: number; frames: number; elu?: number; eld?: number; cpuMs?: number }

export class GeneratorTimeline {
  private readonly bins = new Map<number, Bin>();
  private readonly probes: [number, number][] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly file: string) {}

  private bin(ms: number): Bin {
    const b = Math.floor(ms / 100);
    let x = this.bins.get(b);
    if (!x) this.bins.set(b, (x = { sent: 0, frames: 0 }));
    return x;
  }

  sent(now: number): void { this.bin(now).sent++; }
  frame(now: number): void { this.bin(now).frames++; }
  probe(sentAt: number, receivedAt: number): void { this.probes.push([sentAt, receivedAt]); }

  start(): void {
    const eld = monitorEventLoopDelay({ resolution: 10 });
    eld.enable();
    let elu = performance.eventLoopUtilization();
    let cpu = process.cpuUsage();
    this.timer = setInterval(() => {
      const x = this.bin(Date.now() - 100);
      const nextElu = performance.eventLoopUtilization();
      x.elu = performance.eventLoopUtilization(nextElu, elu).utilization;
      elu = nextElu;
      x.eld = eld.max / 1e6;
      eld.reset();
      const nextCpu = process.cpuUsage();
      x.cpuMs = (nextCpu.user - cpu.user + nextCpu.system - cpu.system) / 1000;
      cpu = nextCpu;
    }, 100);
  }

  /** Writes the bins and the probes (JSON lines: {bin,...} and {probe:[sent,received]}). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    const lines = [...this.bins].sort((a, b) => a[0] - b[0]).map(([bin, x]) => JSON.stringify({ bin, ...x }));
    for (const p of this.probes) lines.push(JSON.stringify({ probe: p }));
    fs.writeFileSync(this.file, lines.join('\n') + '\n');
  }
}
