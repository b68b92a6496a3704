// The opening table of docs/benchmarks.md from one sitting of bench/standing-sitting.sh: its JSON
// lines (bench/results/standing-sitting.jsonl, or the file given) as a Markdown table, the service
// beside the reference and the floors, with the issue's bars.
//
//   npx tsx bench/standing-table.ts [bench/results/standing-sitting.jsonl]
import fs from 'node:fs';

type Row = Record<string, number | string | boolean> & { label: string; bench: string };
const file = process.argv[2] ?? 'bench/results/standing-sitting.jsonl';
const rows: Row[] = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Row);

const n = (r: Row | undefined, k: string): number => (r ? Number(r[k]) : NaN);
const f = (x: number, digits = 0): string => (Number.isFinite(x) ? x.toFixed(digits) : '—');
const list = (xs: number[], digits = 0): string => (xs.length ? xs.map((x) => f(x, digits)).join(', ') : '—');
const pick = (label: string, bench: string, where: (r: Row) => boolean = () => true) => rows.filter((r) => r.label === label && r.bench === bench && where(r));
const live = (r: Row) => r.kbPerMatch === undefined && r.M !== undefined;
const at = (M: number, rate: number, pinned: boolean) => (r: Row) => live(r) && r.M === M && r.rate === rate && (r.pin !== 'none') === pinned;
const held = (r: Row) => n(r, 'delivery') >= 0.95 && n(r, 'p99') <= 250;

const out: string[] = ['| measure (one sitting) | the reference | this service | floor | the bar (issue 38) |', '|---|---|---|---|---|'];

for (const rate of [3, 20]) {
  const ref = pick('reference', 'broadcast', at(50, rate, false));
  const svc = pick('service', 'broadcast', at(50, rate, false));
  const refMedian = median(ref.map((r) => n(r, 'cpuMicrosPerFrame')));
  const ratios = svc.map((r) => n(r, 'cpuMicrosPerFrame') / refMedian);
  out.push(`| M=50 at ${rate} msg/s: CPU µs per delivered frame (each round) | ${list(ref.map((r) => n(r, 'cpuMicrosPerFrame')))} | ${list(svc.map((r) => n(r, 'cpuMicrosPerFrame')))} (${list(ratios.map((x) => x * 100))} % of the reference's median) | | ≤ ${rate === 20 ? '¼' : '½'} of the reference's |`);
  out.push(`| M=50 at ${rate} msg/s: p99 ms, delivery (each round) | ${ref.map((r) => `${f(n(r, 'p99'))}, ${f(n(r, 'delivery'), 2)}`).join('; ') || '—'} | ${svc.map((r) => `${f(n(r, 'p99'))}, ${f(n(r, 'delivery'), 2)}`).join('; ') || '—'} | | ${rate === 3 ? 'p99 ≤ 150 ms every round' : ''} |`);
}

{ // the same at 20 msg/s after a 60 s warm-up (the `steady` part): both servers done compiling their hot paths
  const ref = pick('reference-steady', 'broadcast', at(50, 20, false));
  const svc = pick('service-steady', 'broadcast', at(50, 20, false));
  const refMedian = median(ref.map((r) => n(r, 'cpuMicrosPerFrame')));
  const ratios = svc.map((r) => n(r, 'cpuMicrosPerFrame') / refMedian);
  if (ref.length || svc.length) out.push(`| M=50 at 20 msg/s after a 60 s warm-up: CPU µs per delivered frame; p99 ms (each round) | ${ref.map((r) => `${f(n(r, 'cpuMicrosPerFrame'))}; ${f(n(r, 'p99'))}`).join(', ') || '—'} | ${svc.map((r) => `${f(n(r, 'cpuMicrosPerFrame'))}; ${f(n(r, 'p99'))}`).join(', ') || '—'} (${list(ratios.map((x) => x * 100))} % of the reference's median) | | ≤ ¼ of the reference's |`);
}

const floor = pick('floor', 'socket-floor')[0];
const svc1500 = pick('service-1500', 'broadcast')[0];
out.push(`| M=1,500 at 3 msg/s, one pinned core: CPU µs per message | | ${f(n(svc1500, 'cpuMicrosPerMessage'))} (${f(n(svc1500, 'cpuMicrosPerMessage') / n(floor, 'cpuMicrosPerMessage'), 2)}× the floor) | ${f(n(floor, 'cpuMicrosPerMessage'))} (socket floor) | ≤ 2× the floor |`);

const ramp = pick('service-ramp', 'broadcast');
const refCap = pick('reference', 'broadcast', (r) => live(r) && r.pin !== 'none');
/** The most matches of a run that held; below its smallest step when none did. */
const heldM = (rs: Row[]) => rs.some(held) ? String(Math.max(...rs.filter(held).map((r) => Number(r.M)))) : rs.length ? `< ${Math.min(...rs.map((r) => Number(r.M)))}` : '—';
const steps = (rs: Row[]) => rs.map((r) => `${r.M}: ${f(n(r, 'p99'))} ms, ${f(n(r, 'delivery'), 2)}`).join('; ');
out.push(`| matches one pinned core holds at game pace (p99 ≤ 250 ms, delivery ≥ 0.95) | ${heldM(refCap)} (${steps(refCap)}) | ${heldM(ramp)} (${steps(ramp)}) | | 4,000 |`);

const refMem = pick('reference', 'broadcast', (r) => r.kbPerMatch !== undefined)[0];
const svcMem = pick('service', 'broadcast', (r) => r.kbPerMatch !== undefined)[0];
out.push(`| KB of RSS per match after the lobby (1,000 matches) | ${f(n(refMem, 'kbPerMatch'))} | ${f(n(svcMem, 'kbPerMatch'))} | | ≤ 80 |`);

// Each run of feed-304.ts prints the service's line, then the floor's: paired in order, one pair a run.
const feed = pick('service', 'feed-304').filter((r) => typeof r.server === 'string');
const feedSvc = feed.filter((r) => r.server === 'service');
const feedFloor = feed.filter((r) => r.server !== 'service');
// The medians of each run's rounds (feed-304 since session 16: a collection in one window moves one
// round, not the figure); a run from before them, its totals.
const net = (r: Row, part: '' | 'Main') => (r[`median${part}NetMicrosPerPoll`] !== undefined ? n(r, `median${part}NetMicrosPerPoll`) : n(r, part ? 'mainNetMicrosPerPoll' : 'netMicrosPerPoll'));
const perPoll = (rs: Row[]) => rs.map((r) => `${f(net(r, ''))} (${f(net(r, 'Main'))})`).join(', ') || '—';
const feedRatios = feedSvc.map((r, i) => net(r, '') / net(feedFloor[i], ''));
const feedMainRatios = feedSvc.map((r, i) => net(r, 'Main') / net(feedFloor[i], 'Main'));
out.push(`| a feed poll answered 304: net CPU µs per poll, all threads (main thread), the median of each run's rounds | | ${perPoll(feedSvc)}: ${list(feedRatios, 2)} (${list(feedMainRatios, 2)})× the floor | ${perPoll(feedFloor)}, bare uWS | ≤ 1.25× the floor |`);

process.stdout.write(out.join('\n') + '\n');

function median(xs: number[]): number {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
}
