import net from 'node:net';
import { spawnService } from '../test/helpers/service-process.ts';
const svc = await spawnService({ AUTH_KEY: 'k', LOG_LEVEL: 'info', ...JSON.parse(process.env.ENV ?? '{}') });
const kinds = ['idle', 'partial', 'drip', 'keepalive'] as const;
const t0 = Date.now();
const results: Record<string, number[]> = {};
const promises: Promise<void>[] = [];
for (const [name, port] of Object.entries({ ingest: svc.ports.ingest, rest: svc.ports.rest, broadcast: svc.ports.broadcast })) {
  for (const kind of kinds) {
    const key = `${name}/${kind}`; results[key] = [];
    for (let i = 0; i < 5; i++) promises.push(new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      let timer: NodeJS.Timeout | undefined;
      s.on('connect', () => {
        const start = Date.now();
        if (kind === 'partial') s.write('GET /socket.io/?EIO=4&transport=polling HTTP/1.1\r\nHost: x\r\n');
        if (kind === 'drip') { const text = 'GET /socket.io/?EIO=4&transport=polling HTTP/1.1\r\nHost: x\r\nX-A: ' + 'a'.repeat(1000); let j = 0; timer = setInterval(() => s.write(text[j++ % text.length]), 2000); }
        if (kind === 'keepalive') s.write('GET /status HTTP/1.1\r\nHost: x\r\n\r\n');
        s.on('close', () => { clearInterval(timer); results[key].push(Date.now() - start); resolve(); });
      });
      s.on('data', () => {});
      s.on('error', () => {});
      setTimeout(() => { if (!s.destroyed) { results[key].push(-1); s.destroy(); } }, Number(process.env.MAXT ?? 70000));
    }));
  }
}
await Promise.all(promises);
for (const [k, v] of Object.entries(results)) console.log(k.padEnd(22), v.join(' '));
console.log(svc.out.filter(l => /error|warn/i.test(l)).slice(0, 10).join('\n'));
await svc.stop('SIGKILL');
