// A long-lived streamed HTTP response, as the operator dashboard (admin/dashboard.ts) writes to it.
// It lives with its maker (http.ts: Reply.stream over uWS), and the import check places it on the
// base layer, below its user, so that the dashboard does not import the REST layer above it
// (scripts/check-imports.mjs).

/**
 * A long-lived streamed response (server-sent events): the headers at once, chunks later. uWS keeps
 * whatever a write could not send yet; `write` says when that happened (the stream is congested
 * until uWS reports it writable again), so the caller can skip updates instead of piling them up.
 */
export interface ResponseStream {
  /** False when the client is gone or the chunk had to be buffered (congested until onDrain). */
  write(chunk: string): boolean;
  readonly closed: boolean;
  readonly congested: boolean;
  onDrain(cb: () => void): void;
  /** The client went away, or end() was called. */
  onClose(cb: () => void): void;
  end(): void;
}
