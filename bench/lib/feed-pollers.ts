// A graphics operator's vMix pointed at every match (bench:broadcast --feeds, bench:events): per
// match, two data sources, GET /feeds/:code/scoreboard.json and /feeds/:code/players.json, each
// polled once a second (vMix's data sources refresh on an interval; 1 s is the shortest a title that
// shows a round clock needs) with If-None-Match of the last ETag it got, over keep-alive
// connections. The matches' polls are staggered over the second, as independent vMix instances
// would be. Counts the answers (200, 304, other) and errors while `measuring`; no polls while
// `paused` (bench/feed-304.ts polls two servers in turn).
import http from 'node:http';

/** `connects`: polls that opened a new connection (a keep-alive connection the server closed). */
export interface FeedPollCounts { ok: number; notModified: number; other: number; errors: number; connects: number }

export const FEEDS = ['scoreboard.json', 'players.json'] as const;

export function startFeedPollers(restUrl: string, codes: string[], everyMs = 1000): { counts: FeedPollCounts; measuring: { on: boolean }; paused: { on: boolean }; stop(): void } {
  const base = new URL(restUrl);
  // One connection per data source, as a vMix instance keeps one per source.
  const agent = new http.Agent({ keepAlive: true, maxSockets: codes.length * FEEDS.length });
  const counts: FeedPollCounts = { ok: 0, notModified: 0, other: 0, errors: 0, connects: 0 };
  const measuring = { on: false };
  const paused = { on: false };
  const timers: NodeJS.Timeout[] = [];
  let stopped = false;
  const poll = (path: string, etag: { value: string }) => {
    const req = http.request({ host: base.hostname, port: base.port, path, agent, headers: etag.value ? { 'If-None-Match': etag.value } : {} }, (res) => {
      res.resume();
      res.on('end', () => {
        const tag = res.headers.etag;
        if (typeof tag === 'string') etag.value = tag;
        if (!measuring.on) return;
        if (!req.reusedSocket) counts.connects++;
        if (res.statusCode === 200) counts.ok++;
        else if (res.statusCode === 304) counts.notModified++;
        else counts.other++;
      });
    });
    req.on('error', () => { if (measuring.on && !stopped) counts.errors++; });
    req.end();
  };
  codes.forEach((code, i) => {
    const sources = FEEDS.map((feed) => ({ path: `/feeds/${encodeURIComponent(code)}/${feed}`, etag: { value: '' } }));
    const start = setTimeout(() => {
      const tick = () => { if (!paused.on) for (const s of sources) poll(s.path, s.etag); };
      tick();
      timers.push(setInterval(tick, everyMs));
    }, (i * everyMs) / codes.length);
    timers.push(start);
  });
  return {
    counts, measuring, paused,
    stop() {
      stopped = true;
      for (const t of timers) { clearTimeout(t); clearInterval(t); }
      agent.destroy();
    },
  };
}
