// For overlay developers and tools that cannot hold a socket:
//   GET /match/:groupCode          the current match_data of a live match: the very text a frontend
//                                  receives (FramePacket.text()), 404 when there is none
//   GET /schema/match_data.json    the JSON Schema the frame serializer is built from
// No key: a group code is an identifier only (docs/interface.md 5), as on the broadcast port.
import type { FrameBus } from '../ports/frame-bus.js';
import { publishedMatchDataSchema } from '../../schemas/match-data.js';
import type { Router } from './http.js';

const SCHEMA_TEXT = JSON.stringify(publishedMatchDataSchema, null, 2) + '\n';

export function registerMatchData(router: Router, frames: FrameBus): void {
  router.get('/match/:groupCode', (req, reply) => {
    let groupCode: string;
    try {
      groupCode = decodeURIComponent(req.params[0]);
    } catch {
      return reply.error(400, 'Invalid group code');
    }
    const frame = frames.latest(groupCode);
    if (!frame) return reply.error(404, 'Match not found');
    reply.send(200, 'application/json; charset=utf-8', frame.text(), { 'Cache-Control': 'no-store' });
  });

  router.get('/schema/match_data.json', (_req, reply) => {
    reply.send(200, 'application/schema+json; charset=utf-8', SCHEMA_TEXT);
  });
}
