// Free loopback ports for servers a test starts on fixed ports (helpers of their own, so that the
// torture harness, which runs outside vitest, can use them too).
import fs from 'node:fs';
import net from 'node:net';

/** Fixed ports are chosen from here up to the kernel's ephemeral range. */
const LOWEST = 10_000;

/**
 * The first port of the kernel's ephemeral range (`ip_local_port_range`): where it picks the local
 * port of an outgoing connection and a listener on port 0. A port chosen below it is never taken
 * by another process's connection while its service is down for a restart (CI's outbox-kill run
 * found its ingestion port held, EADDRINUSE, moments after the kill: the suite's other files make
 * hundreds of connections a second).
 */
function ephemeralStart(): number {
  try {
    const low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > LOWEST + 1_000) return low;
  } catch { /* not Linux: the IANA range's start */ }
  return 49_152;
}

function listenOn(port: number): Promise<net.Server | null> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(null));
    s.listen(port, '127.0.0.1', () => resolve(s));
  });
}

/**
 * `n` distinct free ports below the ephemeral range, held open together while they are chosen (so
 * none is handed out twice), for a service that is restarted on the same ports: uWS binds an
 * ephemeral port (0) without SO_REUSEADDR, and its closed connections (TIME_WAIT) then block
 * binding that port again for a minute; a service started on a fixed port, as in production, can
 * be restarted on it at once.
 */
export async function freePorts(n: number): Promise<number[]> {
  const end = ephemeralStart();
  const held: net.Server[] = [];
  try {
    for (let tries = 0; held.length < n; tries++) {
      if (tries >= 1_000) throw new Error(`no ${n} free ports in ${LOWEST}–${end - 1}`);
      const s = await listenOn(LOWEST + Math.floor(Math.random() * (end - LOWEST)));
      if (s) held.push(s);
    }
    return held.map((s) => (s.address() as net.AddressInfo).port);
  } finally {
    await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
  }
}
