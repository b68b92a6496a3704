// EventOutbox on one node's disk (events/event-outbox.ts), the embedded default's: the journal's own
// files (events/journal-files.ts: a file per match, the cursors file) read and written through the
// port's methods, and nothing beside them. A node that restarts reads its matches' events from
// here; dead-letter redelivery reads an event past memory from here (events/redeliver.ts).
import type { EventOutbox, OutboxEvent } from '../../event-outbox.js';
import type { JournalFiles } from '../../journal-files.js';

export class FileEventOutbox implements EventOutbox {
  constructor(private readonly files: JournalFiles) {}

  append(event: OutboxEvent): Promise<boolean> {
    return this.files.append(event);
  }

  events(matchKey: string, afterSeq?: number): Promise<OutboxEvent[]> {
    return this.files.events(matchKey, afterSeq);
  }

  advance(endpointId: string, matchKey: string, seq: number): Promise<void> {
    return this.files.advance(endpointId, matchKey, seq);
  }

  cursors(matchKey: string): Promise<Record<string, number>> {
    return this.files.cursors(matchKey);
  }

  /** The files are the journal's: closing them writes what is pending (harmless twice). */
  close(): void {
    this.files.close();
  }
}
