import net from 'node:net';
import { spawnService } from '../test/helpers/service-process.ts';
const svc = await spawnService({ AUTH_KEY: 'k', LOG_LEVEL: 'info', MAX_SOCKETS_PER_ADDRESS: '0', MAX_CONNECTIONS_PER_ADDRESS: '0' }, { nofile: Number(process.env.NOFILE ?? 256) });
const port = (svc.ports as any)[process.env.PORT_NAME ?? 'broadcast'];
const sockets: net.Socket[] = [];
let closed = 0;
await new Promise((r) => setTimeout(r, 500)); process.on("exit", () => console.log(svc.out.join("\n").slice(0, 6000)));
const cpu0 = svc.cpuSeconds();
for (let i = 0; i < 400; i++) {
  const s = net.connect(port, '127.0.0.1'); s.on('error', () => {}); s.on('close', () => closed++); sockets.push(s);
}
await new Promise((r) => setTimeout(r, 5000));
console.log('alive', svc.proc.exitCode, 'closed by server', closed, 'cpu over 5s', (svc.cpuSeconds() - cpu0).toFixed(2));
for (const s of sockets) s.destroy();
await new Promise((r) => setTimeout(r, 1000));
const res = await fetch(`http://127.0.0.1:${svc.ports.rest}/status`).then(r => r.status, e => String(e));
const b = await fetch(`http://127.0.0.1:${svc.ports.broadcast}/status`).then(r => r.status, e => String(e));
console.log('rest after', res, 'broadcast after', b, 'exit', svc.proc.exitCode);
console.log(svc.out.slice(-8).join('\n').slice(0, 3000));
await svc.stop('SIGKILL');
