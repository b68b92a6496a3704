// socket.io's attachApp() patches socket-io-adapter's Adapter.prototype for the whole process and
// captures the uWS app attached last (docs/stack-notes.md 3): room publishes, and with connection state
// recovery even per-socket emits, of one server would go out through the other server's app.
// The patch also breaks a socket.io server on node:http in the same process ("websocket.subscribe
// is not a function"). Each of our servers therefore gets an adapter class whose methods never
// reach the patched prototype and use the original in-memory ones (per-socket writes only).
import { Adapter, SessionAwareAdapter, type BroadcastOptions, type Room, type SocketId } from 'socket.io-adapter';

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

/** Room bookkeeping only, with the original in-memory delivery: for servers not on uWS. */
export class LocalAdapter extends Adapter {
  override addAll(id: SocketId, rooms: Set<Room>): void {
    original.addAll.call(this, id, rooms);
  }
  override del(id: SocketId, room: Room): void {
    original.del.call(this, id, room);
  }
  override broadcast(packet: Packet, opts: BroadcastOptions): void {
    original.broadcast.call(this, packet, opts);
  }
}
