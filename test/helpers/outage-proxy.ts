// A TCP proxy on 127.0.0.1 in front of a listener, that the test can cut like a venue network
// outage, as the two ends see it:
// - the client's side breaks at once: its connections are reset, and every connection attempt
//   during the outage is reset too (the client's network stack reports the link down). So
//   socket.io-client sees `transport close`, buffers its emits and retries with its real backoff;
// - the service's side goes silent: its connections stay open, nothing reaches them and what it
//   sends is swallowed, so it learns of the drop only from its ping timeout (or from the reset its
//   first packet after the outage gets), possibly after the client is back (docs/client-contract.md 1.5).
import net from 'node:net';

interface Pair { client: net.Socket; upstream: net.Socket }

export class OutageProxy {
  /** Connections reset because they arrived during an outage. */
  refused = 0;
  /** Connections the service closed without sending a byte (refused by a cap), outside an outage. */
  closedUnanswered = 0;
  private server!: net.Server;
  private readonly pairs = new Set<Pair>();
  /** Service-side connections of cut pairs, kept open and silent. */
  private readonly held = new Set<net.Socket>();
  private down = false;

  /** `target`: a port on 127.0.0.1, or a unix socket path (a Redis server of test/helpers/redis-server.ts). */
  constructor(private readonly target: number | string) {}

  /** Listens on an ephemeral port; resolves with the URL to give the client. */
  async start(): Promise<string> {
    this.server = net.createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  private accept(client: net.Socket): void {
    if (this.down) {
      this.refused++;
      client.resetAndDestroy();
      return;
    }
    client.setNoDelay(true);
    const upstream = typeof this.target === 'number' ? net.connect(this.target, '127.0.0.1') : net.connect(this.target);
    upstream.setNoDelay(true);
    const pair = { client, upstream };
    this.pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    let answered = false;
    upstream.once('data', () => { answered = true; });
    upstream.once('close', () => {
      if (!answered && this.pairs.has(pair) && !client.destroyed) this.closedUnanswered++;
    });
    const end = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  }

  /** The outage starts: client sides reset, service sides silent. */
  cut(): void {
    this.down = true;
    for (const { client, upstream } of this.pairs) {
      upstream.unpipe(client);
      client.unpipe(upstream);
      upstream.removeAllListeners('close').removeAllListeners('error');
      upstream.on('error', () => undefined).on('close', () => this.held.delete(upstream));
      // What the service sends is lost while the network is down; its first packet after the
      // outage reaches a peer that no longer knows the connection, which answers with a reset.
      upstream.on('data', () => {
        if (this.down) return;
        if (typeof this.target === 'number') upstream.resetAndDestroy();
        else upstream.destroy(); // a unix socket has no reset
      });
      upstream.resume();
      this.held.add(upstream);
      client.removeAllListeners('close').removeAllListeners('error');
      client.on('error', () => undefined);
      client.resetAndDestroy();
    }
    this.pairs.clear();
  }

  /** The network is back: new connections are forwarded again. */
  restore(): void {
    this.down = false;
  }

  async close(): Promise<void> {
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    for (const s of this.held) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
