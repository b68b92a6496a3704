// Outbound HTTP: every call has a timeout (the whole exchange, body included), a bounded
// response size, and never follows redirects (a redirect would carry our token headers elsewhere).
// The composition root makes one `Outbound` (createOutbound) that reports every call (the metrics'
// `outboundCall` event) and hands it to every module that calls out.
import type { OutboundOutcome } from '../base/events.js'; // the outboundCall event's vocabulary, declared below this module
import { MAX_OUTBOUND_RESPONSE_BYTES as MAX_RESPONSE_BYTES } from '../base/limits.js';

/** A request that produced no HTTP answer: the peer was unreachable, too slow, or sent too much. */
export class OutboundError extends Error {
  constructor(readonly kind: 'timeout' | 'network' | 'too-large', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OutboundError';
  }
}

export interface RequestInit {
  method?: string;
  headers?: Record<string, string>;
  /** A string or URLSearchParams is sent as is (form bodies); anything else (not undefined) as JSON. */
  body?: unknown;
  timeoutMs: number;
  /** Names the call in the metrics (`ods_backend_*{call}`); never derived from the URL, which can carry keys. */
  label?: string;
}

export type { OutboundOutcome };
/** Told of every call when it ended: its label ('other' when unlabelled), duration and outcome. */
export type OutboundReport = (label: string, seconds: number, outcome: OutboundOutcome) => void;

/**
 * One outbound request. Resolves with any HTTP status; throws OutboundError when there is no
 * complete answer in time (network failure, timeout, redirect, oversized body).
 */
export type Outbound = (url: string, init: RequestInit) => Promise<JsonResponse>;

/** The service's outbound client: `requestJson`, each call reported to `onCall`. */
export function createOutbound(onCall?: OutboundReport): Outbound {
  return (url, init) => requestJson(url, init, onCall);
}

export interface JsonResponse {
  status: number;
  /** The parsed JSON body; undefined when the body is empty or not JSON. */
  body: unknown;
}


async function requestJson(url: string, init: RequestInit, onCall: OutboundReport | undefined): Promise<JsonResponse> {
  const report = (label: string | undefined, started: number, outcome: OutboundOutcome): void => {
    onCall?.(label ?? 'other', (performance.now() - started) / 1000, outcome);
  };
  const headers: Record<string, string> = { Accept: 'application/json', ...init.headers };
  let body: string | URLSearchParams | undefined;
  if (typeof init.body === 'string' || init.body instanceof URLSearchParams) body = init.body;
  else if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
  }
  const signal = AbortSignal.timeout(init.timeoutMs);
  const started = performance.now();
  try {
    const res = await fetch(url, { method: init.method ?? 'GET', headers, body, signal, redirect: 'manual' });
    const text = await readLimited(res);
    let parsed: unknown;
    if (text.length > 0) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    report(init.label, started, `${Math.min(5, Math.max(2, Math.floor(res.status / 100)))}xx` as OutboundOutcome);
    return { status: res.status, body: parsed };
  } catch (err) {
    if (err instanceof OutboundError) {
      report(init.label, started, err.kind);
      throw err;
    }
    if (signal.aborted) {
      report(init.label, started, 'timeout');
      throw new OutboundError('timeout', `no answer within ${init.timeoutMs} ms`, { cause: err });
    }
    report(init.label, started, 'network');
    // Only an error code in the message: fetch's own messages can quote the URL, and some URLs
    // carry an access key in their path.
    const code = (err as { cause?: { code?: unknown } }).cause?.code;
    throw new OutboundError('network', typeof code === 'string' ? code : 'request failed', { cause: err });
  }
}

async function readLimited(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_RESPONSE_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new OutboundError('too-large', `response larger than ${MAX_RESPONSE_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * One URL path segment from an untrusted value: percent-encoded, and never a dot segment
 * ('.' or '..' would be resolved by the URL parser and move the request to another path).
 * Returns undefined for values that cannot be a segment.
 */
export function pathSegment(value: string): string | undefined {
  if (value === '' || value === '.' || value === '..') return undefined;
  return encodeURIComponent(value);
}
