// What the bracket platforms' stand-ins (startgg.ts, challonge.ts) share: a real HTTP server on a
// free loopback port that a test can take down (connections refused) and bring back on that port.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export abstract class PlatformStandin {
  private server!: http.Server;
  protected port = 0;

  /** Starts listening on a free port; each request goes to `handle`. */
  protected async listen(): Promise<void> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  protected abstract handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void>;

  /** Refuses every connection for `ms`, then listens on the same port again; resolves when it is back. */
  async down(ms: number): Promise<void> {
    await this.stop();
    await new Promise((resolve) => setTimeout(resolve, ms));
    await this.resume();
  }

  /** Stops listening (connections refused) until resume(). */
  async stop(): Promise<void> {
    await new Promise<void>((resolve) => { this.server.close(() => resolve()); this.server.closeAllConnections(); });
  }

  /** Listens on the same port again. */
  async resume(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
