// bench/feed-floor.ts — the floor under the feeds' CPU (issue 26's bound): the polls of
// bench:events (lib/feed-pollers.ts: per match, two feeds, each polled once a second with
// If-None-Match, over keep-alive connections, staggered over the second) answered by a bare
// uWebSockets.js server (the service's REST binding) that does nothing but answer: a 304 when the
// poll names the current ETag, else a 200 with a fixed body of the players feed's size, whose ETag
// changes every `--change-ms` (1,000: the scoreboard's round clock and the players' rows change
// about once a second at game pace, so most polls of a live match are 200s). No lookup, no tables,
// no digest: what is left is loopback TCP, epoll, HTTP parsing and uWS's calls.
//
//   npx tsx bench/feed-floor.ts --matches 200 --duration 20 --pin 0:1 [--change-ms 1000] [--body-bytes 2500]
//
// The server runs in a child process pinned to core S, the pollers here on core G. Reports the
// server's CPU (all its threads, user and kernel from /proc) per poll and per second.
import { createApp, listen } from '../src/main/internals/uws.js';
import { opt } from './lib/args.js';
import { startFeedPollers } from './lib/feed-pollers.js';
import { jsonLine, machine, table, writeResults } from './lib/report.js';
import { cpuBetween, forkPinnedServer, threadCpu } from './lib/threads.js';

const M = Number(opt('matches', '200'));
const DURATION = Number(opt('duration', '20'));
const WARMUP = Number(opt('warmup', '5'));
const CHANGE_MS = Number(opt('change-ms', '1000'));
const BODY_BYTES = Number(opt('body-bytes', '2500'));
const [SERVER_CORE, POLLER_CORE] = opt('pin', '0:1').split(':');

if (process.argv[2] === 'server') {
  const body = 'x'.repeat(BODY_BYTES);
  const app = createApp(null);
  app.get('/*', (res, req) => {
    const etag = `"${Math.floor(Date.now() / CHANGE_MS)}"`;
    if (req.getHeader('if-none-match') === etag) {
      res.cork(() => res.writeStatus('304 Not Modified').writeHeader('ETag', etag).end());
      return;
    }
    res.cork(() => res.writeHeader('Content-Type', 'application/json').writeHeader('ETag', etag).end(body));
  });
  const { port } = await listen(app, '127.0.0.1', 0);
  process.send!({ port });
} else {
  const { child: server, port } = await forkPinnedServer(import.meta.url, 'server', SERVER_CORE, POLLER_CORE);
  const codes = Array.from({ length: M }, (_, i) => 'F' + i.toString(36).toUpperCase().padStart(5, '0'));
  const pollers = startFeedPollers(`http://127.0.0.1:${port}`, codes);

  await new Promise((r) => setTimeout(r, WARMUP * 1000));
  const cpu0 = threadCpu(server.pid!);
  pollers.measuring.on = true;
  await new Promise((r) => setTimeout(r, DURATION * 1000));
  pollers.measuring.on = false;
  const { user, kernel } = cpuBetween(cpu0, threadCpu(server.pid!));
  const { ok, notModified, other, errors } = pollers.counts;
  const polls = ok + notModified;
  const result = {
    M, pollsPerSec: polls / DURATION, ok, notModified, other, errors,
    cpuPct: ((user + kernel) / DURATION) * 100, cpuMsPerSec: ((user + kernel) * 1000) / DURATION,
    cpuMicrosPerPoll: ((user + kernel) * 1e6) / polls, userPerPoll: (user * 1e6) / polls, kernelPerPoll: (kernel * 1e6) / polls,
  };
  jsonLine({ bench: 'feed-floor', ...result });
  process.stdout.write('\n' + table([result], ['M', 'pollsPerSec', 'ok', 'notModified', 'cpuPct', 'cpuMsPerSec', 'cpuMicrosPerPoll', 'userPerPoll', 'kernelPerPoll']) + '\n');
  writeResults('feed-floor', { bench: 'feed-floor', machine: machine(), options: { M, DURATION, WARMUP, CHANGE_MS, BODY_BYTES, pin: `${SERVER_CORE}:${POLLER_CORE}` }, result });
  pollers.stop();
  server.kill();
  process.exit(0);
}
