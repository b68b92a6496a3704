// GET /events (README, "Live event stream"): the match events as server-sent events, the same as the
// webhooks get, for NodeCG bundles, Bitfocus Companion and custom graphics. Each event is
// `id: <event id>`, `event: <type>`, `data: <the event's JSON>`. A client that reconnects with
// `Last-Event-ID` (the header EventSource sends, or `?lastEventId=`) gets every event after that one
// first, when it is still within EVENTS_RESUME_WINDOW_MS; otherwise an `event: gap` tells it that
// it missed some (fetch the record), then the live events. A client that does not keep up (its
// socket's buffer full) is disconnected, never waited for: it reconnects and resumes.
import type { ResponseStream } from '../http/response-stream.js';
import type { EventJournal } from './journal.js';
import type { StoredEvent } from './types.js';

const HEARTBEAT_MS = 15_000;

export interface StreamFilter {
  groupCodes: Set<string> | null;
  types: Set<string> | null;
}

interface Client { stream: ResponseStream; filter: StreamFilter }

export class EventStream {
  private readonly clients = new Set<Client>();
  private readonly unsubscribe: () => void;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(private readonly journal: EventJournal, private readonly maxClients: number) {
    this.unsubscribe = journal.subscribe((stored) => {
      for (const client of this.clients) this.write(client, stored);
    });
    this.heartbeat = setInterval(() => {
      for (const client of this.clients) if (!client.stream.congested) client.stream.write(': keepalive\n\n');
    }, HEARTBEAT_MS).unref();
  }

  get full(): boolean {
    return this.clients.size >= this.maxClients;
  }

  get count(): number {
    return this.clients.size;
  }

  /** A new client: its missed events first (from `lastEventId`), then every new one that passes its filter. */
  attach(stream: ResponseStream, filter: StreamFilter, lastEventId: string): void {
    const client: Client = { stream, filter };
    if (lastEventId) {
      const missed = this.journal.after(lastEventId);
      if (missed === null) stream.write(`event: gap\ndata: ${JSON.stringify({ lastEventId })}\n\n`);
      else for (const stored of missed) this.write(client, stored);
    }
    if (stream.closed) return;
    this.clients.add(client);
    stream.onClose(() => this.clients.delete(client));
  }

  close(): void {
    this.unsubscribe();
    clearInterval(this.heartbeat);
    for (const client of this.clients) client.stream.end();
    this.clients.clear();
  }

  private write(client: Client, stored: StoredEvent): void {
    const { filter, stream } = client;
    if (filter.groupCodes && !filter.groupCodes.has(stored.groupCode)) return;
    if (filter.types && !filter.types.has(stored.type)) return;
    if (stream.congested) {
      // Behind: it would only fall further behind. It resumes from its last event id on reconnect.
      this.clients.delete(client);
      stream.end();
      return;
    }
    stream.write(`id: ${stored.id}\nevent: ${stored.type}\ndata: ${stored.text}\n\n`);
  }
}
