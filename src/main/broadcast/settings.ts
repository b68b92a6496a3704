// The broadcast's settings: the frame cycle, when and how frames are made, slow overlay readers.
import { int, oneOf, part, s } from '../base/settings-kit.js';

export const BROADCAST_SETTINGS = part('broadcast', 'Broadcast: frames to the overlays', {
  BROADCAST_INTERVAL_MS: s(int(10, 10_000), 100, 'the broadcast cycle: at most one frame per match per interval'),
  FRAME_EDGE: s(oneOf('leading', 'cycle', 'auto'), 'auto', 'when the frame of a changed match goes out: leading (after the batch that changed it, when its last frame went out in an earlier BROADCAST_INTERVAL_MS interval of the clock, at least four fifths of one before; else when that is so), cycle (at the next cycle of its shard: one wake-up and one hand-off for every match changed in the interval, up to one interval more latency) or auto (the default: leading while the service is busy, at least 50 observer and auxiliary messages per interval; while it is quiet, or (under 200 messages an interval) nearly every match that sends has sent 1.5 messages an interval or more for a second, those messages wait up to the end of the interval on the main thread and go to their shard together, whose frames then go out: one hand-off per interval instead of one per message)'),
  FRAME_SERIALIZER: s(oneOf('wire', 'json'), 'wire', 'how frames are serialized: wire (one pass to the WebSocket message, unchanged players reused) or json (fast-json-stringify, then escaped)'),
  FRONTEND_MAX_BUFFERED_BYTES: s(int(16_384, 67_108_864), 262_144, 'an overlay frontend with more than this queued is skipped (slow reader) and gets the latest frame once it drained'),
});
