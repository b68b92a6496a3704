// Ingestion listener (5100): observer and auxiliary clients. Connection state recovery is on
// (clients.md 1.5), so every emit goes through the adapter: IngestAdapter keeps it on this server.
import type { Server, Socket } from 'socket.io';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { IngestAdapter } from '../sockets/adapters.js';
import { createIoServer } from '../sockets/io-server.js';
import type { TemplatedApp } from '../uws.js';

export interface IngestDeps {
  config: Config;
  log: Logger;
  /** Test-only events (see test/socket-isolation.test.ts); never enabled from the environment. */
  testHooks: boolean;
}

export class IngestServer {
  readonly io: Server;
  private readonly log: Logger;

  constructor(app: TemplatedApp, private readonly deps: IngestDeps) {
    this.log = deps.log.child({ module: 'ingest' });
    this.io = createIoServer(app, deps.config, { adapter: IngestAdapter, recovery: true, maxBackpressure: 1024 * 1024 });
    this.io.on('connection', (socket) => this.onConnection(socket));
  }

  private onConnection(socket: Socket): void {
    // Handlers are bound synchronously: the client flushes buffered emits right after CONNECT.
    if (this.deps.testHooks) {
      socket.on('test_echo', (payload: unknown) => socket.emit('test_echo', payload));
    }
  }

  async close(): Promise<void> {
    await this.io.close();
  }
}
