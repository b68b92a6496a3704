// The parts of the service a profiled function belongs to, by its script's path (issue 20's
// breakdown): lib/profile-summary.ts (CPU) and alloc-profile-table.ts (allocations).

/** The part a function belongs to, by its script's path. */
export function partOf(name: string, url: string): string {
  if (name === '(garbage collector)') return 'GC';
  if (name === 'postMessage' || url.includes('worker_threads') || url.includes('per_context/messageport') || url.includes('internal/worker')) return 'thread hand-off (postMessage, port)';
  if (url.includes('/socket.io') || url.includes('/engine.io') || url.includes('socket.io-parser') || url.includes('socket.io-adapter')) return 'socket.io / engine.io';
  if (url.includes('uWebSockets') || url.includes('uws')) return 'uWS';
  if (url.includes('/ws/')) return 'ws (broadcast sockets)';
  if (url.includes('/dist/workers/') || url.includes('/dist/codec/')) return 'shard code (engine, serializer, delta, snapshots)';
  if (url.includes('/dist/main/')) return 'main code (ingest, matches, broadcast)';
  if (url.includes('/dist/')) return 'service code (other)';
  if (url.startsWith('node:') || url === '' ) return name === '(program)' ? 'V8 (program)' : 'node internals / native (timers, streams, writev)';
  return 'other libraries';
}
