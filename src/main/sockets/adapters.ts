// socket.io's attachApp() patches socket-io-adapter's Adapter.prototype for the whole process and
// captures the uWS app attached last (stack.md): room publishes, and with connection state
// recovery even per-socket emits, of one server would go out through the other server's app.
// Each of our servers therefore gets an adapter class whose methods never reach the patched
// prototype: the ingestion adapter uses the original in-memory methods (per-socket writes only),
// the broadcast adapter publishes through the app it was made for.
import { Adapter, SessionAwareAdapter, type BroadcastOptions, type Room, type SocketId } from 'socket.io-adapter';
import type { Namespace } from 'socket.io';
import type { TemplatedApp } from '../uws.js';

// Captured at module load, before any attachApp() call can have patched the prototype.
const original = {
  addAll: Adapter.prototype.addAll,
  del: Adapter.prototype.del,
  broadcast: Adapter.prototype.broadcast,
};

type Packet = { type: number; data: unknown[]; id?: number; nsp?: string };

let offsetCounter = 0;
const nextOffset = (): string => (++offsetCounter).toString(36) + '.' + Date.now().toString(36);

/** Ingestion: connection state recovery bookkeeping of SessionAwareAdapter, original delivery. */
export class IngestAdapter extends SessionAwareAdapter {
  override addAll(id: SocketId, rooms: Set<Room>): void {
    original.addAll.call(this, id, rooms);
  }
  override del(id: SocketId, room: Room): void {
    original.del.call(this, id, room);
  }
  override broadcast(packet: Packet, opts: BroadcastOptions): void {
    // Same as SessionAwareAdapter.broadcast, whose super call would reach the patched prototype.
    const store = packet.type === 2 && packet.id === undefined && opts.flags?.volatile === undefined;
    if (store) {
      const id = nextOffset();
      packet.data.push(id);
      (this as unknown as { packets: unknown[] }).packets.push({ id, opts, data: packet.data, emittedAt: Date.now() });
    }
    original.broadcast.call(this, packet, opts);
  }
}

const SEPARATOR = '\x1f';
type UwsSocketLike = { conn: { id: string; transport: { name: string; socket: { subscribe(t: string): void; unsubscribe(t: string): void } }; on(ev: string, fn: () => void): void } };

/** Broadcast: the uWS fast path (one publish per room), bound to this server's own app. */
export function broadcastAdapterFor(app: TemplatedApp, compressThreshold: number | null): typeof Adapter {
  return class BroadcastAdapter extends Adapter {
    constructor(nsp: Namespace) {
      super(nsp);
    }
    private socketOf(id: SocketId): UwsSocketLike | undefined {
      const nsp = this.nsp as unknown as { sockets: Map<string, UwsSocketLike>; _preConnectSockets?: Map<string, UwsSocketLike> };
      return nsp.sockets.get(id) ?? nsp._preConnectSockets?.get(id);
    }
    override addAll(id: SocketId, rooms: Set<Room>): void {
      original.addAll.call(this, id, rooms);
      const socket = this.socketOf(id);
      if (!socket) return;
      const subscribe = () => {
        const current = this.sids.get(id);
        if (!current) return;
        for (const room of current) socket.conn.transport.socket.subscribe(this.nsp.name + SEPARATOR + room);
      };
      if (socket.conn.transport.name === 'websocket') subscribe();
      else socket.conn.on('upgrade', subscribe);
    }
    override del(id: SocketId, room: Room): void {
      original.del.call(this, id, room);
      const socket = this.socketOf(id);
      if (socket && socket.conn.transport.name === 'websocket') socket.conn.transport.socket.unsubscribe(this.nsp.name + SEPARATOR + room);
    }
    override broadcast(packet: Packet, opts: BroadcastOptions): void {
      if (opts.rooms.size !== 1 || (opts.except?.size ?? 0) !== 0) {
        original.broadcast.call(this, packet, opts);
        return;
      }
      packet.nsp = this.nsp.name;
      const encoded = (this as unknown as { encoder: { encode(p: Packet): (string | Buffer)[] } }).encoder.encode(packet);
      const topic = this.nsp.name + SEPARATOR + String(opts.rooms.values().next().value);
      for (const chunk of encoded) {
        const isBinary = typeof chunk !== 'string';
        const message = isBinary ? chunk : '4' + chunk;
        const compress = compressThreshold !== null && message.length >= compressThreshold;
        app.publish(topic, message, isBinary, compress);
      }
      // Long-polling clients are not uWS topic subscribers: write to them one by one.
      const packetOpts = { preEncoded: true, volatile: opts.flags?.volatile, compress: opts.flags?.compress };
      const self = this as unknown as { apply(o: BroadcastOptions, fn: (socket: unknown) => void): void };
      self.apply(opts, (socket) => {
        const s = socket as { conn: { transport: { name: string } }; client: { writeToEngine(p: unknown, o: unknown): void } };
        if (s.conn.transport.name !== 'websocket') s.client.writeToEngine(encoded, packetOpts);
      });
    }
  };
}
