// What one webhook POST costs the service's thread, by client: node:http with a keep-alive agent
// (the client before issue 26's cost work), undici's Pool.request, and the service's own poster
// (events/post.ts: undici with its timer, bound and report). A local receiver in another process
// answers 204 (so its CPU is not counted); 8 requests in flight (an endpoint's lanes); the CPU of this
// process (process.cpuUsage) per request, the median of --rounds rounds of --requests each.
//
//   npm run build && npx tsx bench/webhook-client.ts [--requests 4000] [--rounds 5] [--pin 1]
import { fork } from 'node:child_process';
import http from 'node:http';
import { Pool } from 'undici';
import { webhookPoster, webhookSigner } from '#built/main/events/post.js';
import { opt } from './lib/args.js';
import { jsonLine, machine, table, writeResults } from './lib/report.js';
import { pin } from './lib/threads.js';

if (process.argv[2] === 'receiver') {
  const server = http.createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(204).end()); });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send!((server.address() as { port: number }).port));
} else {
  const REQUESTS = Number(opt('requests', '4000'));
  const ROUNDS = Number(opt('rounds', '5'));
  const PIN = opt('pin', '');
  if (PIN) pin(process.pid, PIN);
  const receiver = fork(import.meta.filename, ['receiver'], { execArgv: process.execArgv });
  const port = await new Promise<number>((r) => receiver.once('message', (p) => r(p as number)));
  const url = new URL(`http://127.0.0.1:${port}/hook`);
  // A kill event as the journal stores it (~400 bytes), signed as delivery.ts signs it.
  const body = JSON.stringify({ id: 'K7QX2M-lz1k2f.42', type: 'kill', version: 1, seq: 42, groupCode: 'K7QX2M', matchId: 'c0ffee00-0000-4000-8000-000000000000', matchKey: 'K7QX2M-lz1k2f', time: new Date().toISOString(), round: 3, data: { attacker: { name: 'Player One', agent: 'Jett' }, victim: { name: 'Player Two', agent: 'Sage' }, weapon: 'Vandal', headshot: true, assists: ['Player Three'], firstBlood: false, teamKill: false } });
  const sign = webhookSigner(`whsec_${Buffer.from('bench-webhook-client-secret-32b!').toString('base64')}`);
  const headers = () => {
    const ts = Math.floor(Date.now() / 1000);
    return { 'Content-Type': 'application/json', 'User-Agent': 'overlay-data-service-webhooks', 'webhook-id': 'K7QX2M-lz1k2f.42', 'webhook-timestamp': String(ts), 'webhook-signature': sign('K7QX2M-lz1k2f.42', ts, body) };
  };

  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const viaHttp = () => new Promise<number>((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { ...headers(), 'Content-Length': String(Buffer.byteLength(body)) } }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => { clearTimeout(timer); resolve(res.statusCode ?? 0); });
    });
    const timer = setTimeout(() => req.destroy(), 10_000);
    req.on('error', reject);
    req.end(body);
  });
  const pool = new Pool(url.origin, { connections: 8, pipelining: 1 });
  const viaPool = async () => {
    const res = await pool.request({ path: url.pathname, method: 'POST', headers: headers(), body });
    await res.body.dump();
    return res.statusCode;
  };
  const poster = webhookPoster(url.href, 10_000);
  const viaPoster = () => poster.post(body, headers());
  const clients: Record<string, () => Promise<number>> = { 'node:http keep-alive': viaHttp, 'undici Pool.request': viaPool, 'events/post.ts (undici)': viaPoster };

  const round = async (call: () => Promise<number>, n: number): Promise<number> => {
    const start = process.cpuUsage();
    let started = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (started++ < n) if ((await call()) !== 204) throw new Error('not 204');
    }));
    const used = process.cpuUsage(start);
    return (used.user + used.system) / n;
  };
  for (const call of Object.values(clients)) await round(call, 1000); // warm-up
  const samples: Record<string, number[]> = {};
  for (let r = 0; r < ROUNDS; r++) for (const [name, call] of Object.entries(clients)) (samples[name] ??= []).push(await round(call, REQUESTS));
  const rows = Object.entries(samples).map(([client, xs]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return { client, cpuUsPerRequestMedian: Number(sorted[Math.floor(sorted.length / 2)].toFixed(1)), min: Number(sorted[0].toFixed(1)), max: Number(sorted[sorted.length - 1].toFixed(1)) };
  });
  for (const row of rows) jsonLine({ bench: 'webhook-client', ...row });
  process.stdout.write('\n' + table(rows, ['client', 'cpuUsPerRequestMedian', 'min', 'max']) + '\n');
  process.stdout.write(`results: ${writeResults('webhook-client', { machine: machine(), options: { REQUESTS, ROUNDS, PIN }, rows })}\n`);
  agent.destroy();
  await pool.close();
  poster.close();
  receiver.kill();
}
