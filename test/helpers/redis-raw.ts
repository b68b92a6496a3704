// One Redis command over a fresh connection, read up to one complete RESP reply, for the test
// helpers that start Redis and Sentinel (redis-server.ts, redis-sentinel.ts): they need it before
// and besides any client of the service's (readiness, INFO, SENTINEL queries, CONFIG).
import net from 'node:net';

/** Sends `args` as one RESP command to `to` (a Unix socket path, or a loopback port) and resolves with the raw reply. */
export function rawCommand(to: string | number, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = typeof to === 'string' ? net.createConnection(to) : net.createConnection(to, '127.0.0.1');
    let reply = Buffer.alloc(0);
    const timer = setTimeout(() => { sock.destroy(); reject(new Error('redis command timed out')); }, 5000);
    sock.on('error', (err) => { clearTimeout(timer); reject(err); });
    sock.on('connect', () => sock.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`));
    sock.on('data', (c: Buffer) => {
      reply = Buffer.concat([reply, c]);
      if (complete(reply) < 0) return;
      clearTimeout(timer);
      sock.end();
      resolve(reply.toString());
    });
  });
}

/** The end offset of one complete RESP value at `at` (-1 while incomplete). */
function complete(b: Buffer, at = 0): number {
  const eol = b.indexOf('\r\n', at);
  if (eol < 0) return -1;
  const head = b.subarray(at + 1, eol).toString();
  switch (b[at]) {
    case 0x24: { // $bulk
      const len = Number(head);
      if (len < 0) return eol + 2;
      return b.length >= eol + 2 + len + 2 ? eol + 2 + len + 2 : -1;
    }
    case 0x2a: { // *array
      const n = Number(head);
      let pos = eol + 2;
      for (let i = 0; i < n; i++) {
        pos = complete(b, pos);
        if (pos < 0) return -1;
      }
      return pos;
    }
    default: return eol + 2; // +simple, -error, :integer
  }
}
