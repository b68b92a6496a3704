// Free loopback ports for servers a test starts on fixed ports (helpers of their own, so that the
// torture harness, which runs outside vitest, can use them too).
import net from 'node:net';

/**
 * `n` distinct free ports, held open together while they are chosen (so none is handed out twice),
 * for a service that is restarted on the same ports: uWS binds an ephemeral port (0) without
 * SO_REUSEADDR, and its closed connections (TIME_WAIT) then block binding that port again for a
 * minute; a service started on a fixed port, as in production, can be restarted on it at once.
 */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(Array.from({ length: n }, () => new Promise<net.Server>((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => resolve(s));
  })));
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

export async function freePort(): Promise<number> {
  return (await freePorts(1))[0];
}
