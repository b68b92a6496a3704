// Broadcast listener (5200): overlay frontends log on to a group code's room and receive
// `match_data` snapshots (clients.md 5.1). No connection state recovery here: every frame is a
// full snapshot and the frontend logs on again after a reconnect.
import type { Server, Socket } from 'socket.io';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { broadcastAdapterFor } from '../sockets/adapters.js';
import { createIoServer, parsePayload } from '../sockets/io-server.js';
import type { TemplatedApp } from '../uws.js';

export interface BroadcastDeps {
  config: Config;
  log: Logger;
  /** The latest frame of a live match, for a frontend that logs on mid-match. */
  latestFrame(groupCode: string): string | undefined;
}

const MAX_BACKPRESSURE = 4 * 1024 * 1024;

export class BroadcastServer {
  readonly io: Server;
  private readonly log: Logger;

  constructor(app: TemplatedApp, private readonly deps: BroadcastDeps) {
    this.log = deps.log.child({ module: 'broadcast' });
    const threshold = deps.config.COMPRESSION ? 1024 : null;
    this.io = createIoServer(app, deps.config, {
      adapter: broadcastAdapterFor(app, threshold),
      recovery: false,
      maxBackpressure: MAX_BACKPRESSURE,
    });
    this.io.on('connection', (socket) => this.onConnection(socket));
  }

  private onConnection(socket: Socket): void {
    let loggedOn = false;
    socket.on('logon', (payload: unknown) => {
      if (loggedOn) return; // handled once per socket
      const parsed = parsePayload(payload);
      const groupCode = parsed.ok ? (parsed.value as { groupCode?: unknown }).groupCode : undefined;
      if (typeof groupCode !== 'string' || groupCode.length === 0) {
        this.log.info({ socket: socket.id, error: parsed.ok ? 'no string groupCode' : parsed.error }, 'frontend logon ignored');
        return;
      }
      loggedOn = true;
      socket.join(groupCode);
      socket.emit('logon_success', JSON.stringify({ groupCode, msg: `Logon succeeded for group code ${groupCode}` }));
      const frame = this.deps.latestFrame(groupCode);
      if (frame !== undefined) socket.emit('match_data', frame);
    });
  }

  /** One frame to every frontend of the group: one uWS publish for websocket clients. */
  publish(groupCode: string, frame: string): void {
    this.io.to(groupCode).emit('match_data', frame);
  }

  async close(): Promise<void> {
    await this.io.close();
  }
}
