// The one door to socket-io-parser's internals (issue 16: one owner per library internal). Written
// for socket.io-parser 4.2.7, the version package-lock.json pins: test/main/internals/library-internals.test.ts
// fails naming this module when the installed version differs, and checks on a real Decoder that
// what is read here is still there. On an upgrade, re-read socket-io-parser's lib/index.ts (Decoder),
// then update WRITTEN_FOR.
//
// The ingestion parser (sockets/ingest-parser.ts) decodes the two hot events itself; it must leave
// every text packet to socket-io-parser while a binary packet's attachments are still awaited (the
// Decoder's private `reconstructor`): socket-io-parser then refuses the text packet itself.
import type { Decoder } from 'socket.io-parser';

export const WRITTEN_FOR = { package: 'socket.io-parser', version: '4.2.7' } as const;

/** Whether `decoder` waits for the attachments of a binary packet (socket-io-parser's private `reconstructor`). */
export function reconstructing(decoder: Decoder): boolean {
  return Boolean((decoder as unknown as { reconstructor: unknown }).reconstructor);
}
