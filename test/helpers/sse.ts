// Reads a server-sent-event stream (the dashboard's GET /dashboard/events) one event at a time: for
// test/main/admin/admin-api.test.ts and bench/dashboard.ts.

export interface SseEvent {
  /** the `event:` line */
  event: string;
  /** the `data:` line, as sent */
  data: string;
  /** the event's size on the wire, its blank line included */
  bytes: number;
}

/** The events of `body` as they arrive (blocks without an event name or data are passed over). */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += Buffer.from(value).toString('utf8');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data) yield { event, data, bytes: Buffer.byteLength(block) + 2 };
    }
  }
}
