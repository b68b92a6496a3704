// A TCP proxy on 127.0.0.1 in front of several nodes, as a balancer with a health check sees them:
// each new connection goes to the first node in the list that accepts it. While node A lives,
// every connection goes to A (sticky); when A dies (its connections close), the client's
// reconnection lands on the next node. `moveTo(i)` is a balancer moving its clients: the open
// connections close and new ones try node i first. A plain module (tsx runs it too).
import net from 'node:net';

export class FailoverProxy {
  /** Connections made, by target port. */
  readonly connections = new Map<number, number>();
  private server!: net.Server;
  private readonly sockets = new Set<net.Socket>();
  /** The node new connections try first (then the ones after it, in list order, round). */
  private first = 0;

  constructor(private readonly targetPorts: number[]) {}

  async start(): Promise<string> {
    this.server = net.createServer((client) => this.accept(client, 0));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  /** New connections go to node `index` first; the open ones are closed (their clients reconnect there). */
  moveTo(index: number): void {
    this.first = index;
    for (const s of this.sockets) s.destroy();
  }

  private accept(client: net.Socket, index: number): void {
    if (index >= this.targetPorts.length) {
      client.destroy();
      return;
    }
    client.pause();
    const port = this.targetPorts[(this.first + index) % this.targetPorts.length];
    const upstream = net.connect(port, '127.0.0.1');
    let opened = false;
    upstream.once('error', () => {
      if (!opened) this.accept(client, index + 1); // refused: the next node
      else client.destroy();
    });
    upstream.once('connect', () => {
      opened = true;
      this.connections.set(port, (this.connections.get(port) ?? 0) + 1);
      client.setNoDelay(true);
      upstream.setNoDelay(true);
      this.sockets.add(client).add(upstream);
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
      const end = () => { client.destroy(); upstream.destroy(); this.sockets.delete(client); this.sockets.delete(upstream); };
      client.on('close', end).on('error', end);
      upstream.on('close', end).on('error', end);
    });
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
