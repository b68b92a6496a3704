// GET /metrics (Prometheus text format, METRICS_PORT) scraped and parsed: what an operator's
// Prometheus sees is what the tests check. A plain module (no vitest): the benchmarks use it too.
import http from 'node:http';

export interface Sample { name: string; labels: Record<string, string>; value: number }

export class Metrics {
  /** Metric names declared by `# TYPE` (histograms add _bucket, _sum, _count samples). */
  private readonly declared = new Set<string>();
  readonly samples: Sample[] = [];

  constructor(readonly text: string) {
    const samples = this.samples;
    for (const line of text.split('\n')) {
      if (line.startsWith('# TYPE ')) {
        const [, , name, type] = line.split(' ');
        this.declared.add(name);
        if (type === 'histogram' || type === 'summary') for (const s of ['_bucket', '_sum', '_count']) this.declared.add(name + s);
        continue;
      }
      if (line === '' || line.startsWith('#')) continue;
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
      if (!m) throw new Error(`unparsable metrics line: ${line}`);
      const labels: Record<string, string> = {};
      for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      samples.push({ name: m[1], labels, value: Number(m[3]) });
    }
  }

  /**
   * The sum of the samples of `name` whose labels include `labels` (0 when there is none: a
   * counter with labels shows no sample before its first increment). An undeclared name throws,
   * so a typo cannot pass as zero.
   */
  value(name: string, labels: Record<string, string> = {}): number {
    if (!this.declared.has(name)) throw new Error(`no metric ${name} in /metrics`);
    let sum = 0;
    for (const s of this.samples) {
      if (s.name !== name) continue;
      if (Object.entries(labels).every(([k, v]) => s.labels[k] === v)) sum += s.value;
    }
    return sum;
  }

  /** Each value of `label` among the samples of `name`, with its sum. */
  by(name: string, label: string, labels: Record<string, string> = {}): Record<string, number> {
    if (!this.declared.has(name)) throw new Error(`no metric ${name} in /metrics`);
    const out: Record<string, number> = {};
    for (const s of this.samples) {
      if (s.name !== name || s.labels[label] === undefined) continue;
      if (!Object.entries(labels).every(([k, v]) => s.labels[k] === v)) continue;
      out[s.labels[label]] = (out[s.labels[label]] ?? 0) + s.value;
    }
    return out;
  }
}

/**
 * A GET that is tried once more when a kept-alive connection turns out closed (fetch pools
 * connections per origin, and a service restarted on the same port leaves a dead one in the pool).
 */
export async function getOnce(url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const code = ((err as { cause?: { code?: string } }).cause ?? {}).code;
    if (code !== 'UND_ERR_SOCKET' && code !== 'ECONNRESET') throw err;
    return fetch(url, init);
  }
}

// Scrapes go through node:http with kept-alive connections, not fetch: tests poll /metrics every
// 50 ms for seconds at a time, and a scrape cost 1.7–2.2 ms of CPU so against 4.2–4.6 ms through
// fetch (service and client together, docs/benchmarks.md, "The test suite's time").
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function get(url: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, timeout: 30_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url}: no answer within 30 s`)));
    req.on('error', reject);
  });
}

/** Scrapes `<metricsUrl>/metrics` (once more when a kept-alive connection turns out closed: a service restarted on the same port). */
export async function scrapeMetrics(metricsUrl: string): Promise<Metrics> {
  const url = `${metricsUrl}/metrics`;
  let res: { status: number; text: string };
  try {
    res = await get(url);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET') throw err;
    res = await get(url);
  }
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  return new Metrics(res.text);
}
