import net from 'node:net';
import { createApp, listen } from '../src/main/uws.ts';
const app = createApp(null);
let n = 0;
const open = new Map<string, number>();
app.filter((res, count) => {
  let addr = '?';
  try { addr = Buffer.from(res.getRemoteAddressAsText()).toString(); } catch (e) { addr = 'ERR ' + (e as Error).message; }
  console.log('filter', count, addr, (res as any).x);
  if (count === 1) { (res as any).x = ++n; if (n % 2 === 0) { res.close(); console.log('closed', n); } }
});
app.any('/*', (res) => res.end('hi'));
const { port } = await listen(app, '127.0.0.1', 0);
for (let i = 0; i < 4; i++) {
  await new Promise<void>((resolve) => { const s = net.connect(port, '127.0.0.1'); s.on('close', () => { console.log('client closed', i); resolve(); }); s.on('error', () => {}); s.on('connect', () => s.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n')); s.on('data', (d) => { console.log('data', i, d.length); s.end(); }); });
}
process.exit(0);
