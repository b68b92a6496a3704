// Match events on the REST port (README, "Events, webhooks and records"):
//   GET /schema/events.json   the JSON Schema of every event (public, like the match_data schema)
//   GET /schema/record.json   the JSON Schema of a match record (and of the CSV exports' rows)
//   GET /events               server-sent events with a read token (EVENTS_READ_TOKEN): Bearer, or
//                             `?token=` for EventSource, which cannot set headers; filters
//                             `groupCode` and `type` (comma-separated); resumes from `Last-Event-ID`
//                             (or `?lastEventId=`). Without EVENTS_READ_TOKEN (or EVENTS_ENABLED=false): 404.
import { createAdminTokens } from '../http/admin-tokens.js';
import type { EventOutput } from './event-output.js';
import type { Logger } from '../base/log.js';
import { eventsSchema } from './schema.js';
import { recordSchema } from './record-schema.js';
import { NO_STORE } from '../http/admin-context.js';
import type { Router } from '../http/router.js';

const SCHEMA_TEXT = JSON.stringify(eventsSchema, null, 2) + '\n';
const RECORD_SCHEMA_TEXT = JSON.stringify(recordSchema, null, 2) + '\n';
const RECONNECT_MS = 2000;
const MAX_FILTER_VALUES = 100;

function set(raw: string | null): Set<string> | null {
  if (!raw) return null;
  return new Set(raw.split(',').map((v) => v.trim()).filter((v) => v.length > 0).slice(0, MAX_FILTER_VALUES));
}

export function registerEvents(router: Router, output: EventOutput | null, log: Logger): void {
  router.get('/schema/events.json', (_req, reply) => {
    reply.send(200, 'application/schema+json; charset=utf-8', SCHEMA_TEXT, { 'Cache-Control': 'public, max-age=300' });
  });
  router.get('/schema/record.json', (_req, reply) => {
    reply.send(200, 'application/schema+json; charset=utf-8', RECORD_SCHEMA_TEXT, { 'Cache-Control': 'public, max-age=300' });
  });
  if (!output || output.readTokens.length === 0) return;
  const tokens = createAdminTokens(output.readTokens.map((token, i) => ({ id: `read-${i + 1}`, token })));
  const elog = log.child({ module: 'events' });
  router.get('/events', (req, reply) => {
    const query = req.query.get('token');
    const tokenId = tokens.identify(req.headers.authorization || (query ? `Bearer ${query}` : ''));
    if (tokenId === null) {
      reply.send(401, 'application/json; charset=utf-8', JSON.stringify({ error: 'Unauthorized' }), { 'WWW-Authenticate': 'Bearer realm="overlay data service events"' });
      return;
    }
    if (output.stream.full) return reply.error(503, 'Too many open event streams');
    const lastEventId = (req.headers['last-event-id'] || req.query.get('lastEventId') || '').slice(0, 200);
    const filter = { groupCodes: set(req.query.get('groupCode')), types: set(req.query.get('type')) };
    const stream = reply.stream(200, 'text/event-stream; charset=utf-8', { ...NO_STORE, 'X-Accel-Buffering': 'no' }, `retry: ${RECONNECT_MS}\n\n`);
    output.stream.attach(stream, filter, lastEventId);
    elog.debug({ tokenId, resumed: lastEventId !== '' }, 'event stream opened');
  }, { headers: ['authorization', 'last-event-id'] });
}
