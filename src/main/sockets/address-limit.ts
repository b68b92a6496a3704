// MAX_SOCKETS_PER_ADDRESS: open Engine.IO connections per remote address, per listener. A new
// connection past the cap is refused at its handshake (HTTP 403 with engine.io's JSON body
// `{"code":4,"message":"Too many connections from your address"}`), before any state is kept.
// The address is the TCP peer's (address-key.ts: an IPv6 address counts by its prefix, an
// IPv4-mapped one as IPv4): behind a reverse proxy every client has the proxy's address, so set
// the cap to 0 there (README). Counts are exact and dropped at zero: memory follows open sessions.
import type { Server } from 'socket.io';
import { addressKey } from './address-key.js';

export const TOO_MANY_CONNECTIONS = 'Too many connections from your address';

type EngineRequest = { connection?: { remoteAddress?: string }; socket?: { remoteAddress?: string } };

export class AddressLimiter {
  private readonly open = new Map<string, number>();
  /** Handshakes refused so far. */
  refused = 0;

  constructor(private readonly max: number, private readonly v6PrefixLength = 64) {}

  /** engine.io's `allowRequest`: refuses a handshake from an address at the cap. */
  readonly allowRequest = (req: unknown, callback: (err: string | null | undefined, success: boolean) => void): void => {
    if (this.max === 0) return callback(null, true);
    const r = req as EngineRequest;
    const address = addressKey(r.connection?.remoteAddress ?? r.socket?.remoteAddress, this.v6PrefixLength);
    if ((this.open.get(address) ?? 0) >= this.max) {
      this.refused++;
      return callback(TOO_MANY_CONNECTIONS, false);
    }
    callback(null, true);
  };

  /** Counts the server's open Engine.IO connections per address. */
  attach(io: Server): void {
    io.engine.on('connection', (conn: { remoteAddress?: string; once(event: 'close', fn: () => void): void }) => {
      const address = addressKey(conn.remoteAddress, this.v6PrefixLength);
      this.open.set(address, (this.open.get(address) ?? 0) + 1);
      conn.once('close', () => {
        const n = (this.open.get(address) ?? 1) - 1;
        if (n <= 0) this.open.delete(address);
        else this.open.set(address, n);
      });
    });
  }

  count(address: string): number {
    return this.open.get(addressKey(address, this.v6PrefixLength)) ?? 0;
  }
}
