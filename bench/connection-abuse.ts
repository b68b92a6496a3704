// bench:abuse — how long each port keeps connections that never finish a request (issue 19).
//
//   npm run bench:abuse -- [--per-port 1000] [--silent-ws 100]
//
// Starts the built service (dist/) in its own process with its defaults (INSECURE=true, the
// per-address cap lifted so one address can flood) and opens, to each of the three ports, raw TCP
// connections as an attacker would: half idle (nothing sent), 40 % half-sent (a partial request
// head, then nothing: slowloris), 10 % dripping (a partial head, then a byte every 2 s); and, to
// both Socket.IO ports, `silent-ws` WebSockets that finish the Engine.IO handshake and never send
// the Socket.IO CONNECT. While they are open it times a real observer's logon, a real overlay's
// logon and GET /status. Prints one JSON line per port and kind, a table, and writes
// bench/results/connection-abuse.json.
import { closeAll, overlay, observer } from '../test/helpers/clients.js';
import { destroyAll, openRaw, silentWebSockets, type RawConnection, type RawKind } from '../test/helpers/raw-connections.js';
import { spawnService } from '../test/helpers/service-process.js';
import { opt } from './lib/args.js';
import { jsonLine, machine, percentile, table, writeResults } from './lib/report.js';

const PER_PORT = Number(opt('per-port', '1000'));
const SILENT_WS = Number(opt('silent-ws', '100'));
const WAIT_MS = 60_000;

const svc = await spawnService({ AUTH_KEY: 'k', LOG_LEVEL: 'warn', MAX_CONNECTIONS_PER_ADDRESS: '0', MAX_SOCKETS_PER_ADDRESS: '0' }, { inheritEnv: true });
const ports = { ingest: svc.ports.ingest, rest: svc.ports.rest, broadcast: svc.ports.broadcast };
const kinds: [RawKind, number][] = [['idle', Math.round(PER_PORT * 0.5)], ['partial', Math.round(PER_PORT * 0.4)], ['drip', Math.round(PER_PORT * 0.1)]];
const raw: { port: string; conns: RawConnection[] }[] = [];
const started = Date.now();
for (const [name, port] of Object.entries(ports)) for (const [kind, n] of kinds) raw.push({ port: name, conns: await openRaw(port, kind, n) });
const ws = { ingest: await silentWebSockets(ports.ingest, SILENT_WS), broadcast: await silentWebSockets(ports.broadcast, SILENT_WS) };
const floodMs = Date.now() - started;

// Legitimate clients while the flood is there.
let t = Date.now();
const obs = await observer(svc.urls.ingest, { obsName: 'o', key: 'k', groupCode: 'BENCH1' });
const observerLogonMs = Date.now() - t;
t = Date.now();
await overlay(svc.urls.broadcast, 'BENCH1');
const overlayLogonMs = Date.now() - t;
t = Date.now();
const status = (await fetch(`${svc.urls.rest}/status`)).status;
const statusMs = Date.now() - t;

const open = () => raw.reduce((n, r) => n + r.conns.filter((c) => c.connected && c.closedAfterMs === null).length, 0)
  + Object.values(ws).reduce((n, w) => n + w.closedAfterMs.filter((v) => v === null).length, 0);
const deadline = Date.now() + WAIT_MS;
while (open() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));

const rows: Record<string, unknown>[] = [];
const summarize = (port: string, kind: string, times: (number | null)[]) => {
  const closed = times.filter((v): v is number => v !== null).sort((a, b) => a - b);
  const row = { port, kind, n: times.length, closed: closed.length, minS: closed[0] / 1000, p50S: percentile(closed, 50) / 1000, maxS: closed[closed.length - 1] / 1000 };
  rows.push(row);
  jsonLine(row);
};
for (const { port, conns } of raw) summarize(port, conns[0]?.kind ?? '-', conns.map((c) => c.closedAfterMs));
summarize('ingest', 'eio-no-connect', ws.ingest.closedAfterMs);
summarize('broadcast', 'eio-no-connect', ws.broadcast.closedAfterMs);
const legit = { floodMs, observerLogonMs, overlayLogonMs, statusMs, status, observerConnected: obs.socket.connected };
jsonLine(legit);
console.log(table(rows, ['port', 'kind', 'n', 'closed', 'minS', 'p50S', 'maxS']));
console.log(`during the flood: observer logon ${observerLogonMs} ms, overlay logon ${overlayLogonMs} ms, GET /status ${status} in ${statusMs} ms`);
console.log(`results: ${writeResults('connection-abuse', { machine: machine(), perPort: PER_PORT, silentWs: SILENT_WS, rows, legit })}`);
closeAll();
for (const r of raw) destroyAll(r.conns);
for (const w of Object.values(ws)) w.close();
await svc.stop('SIGKILL');
process.exit(0);
