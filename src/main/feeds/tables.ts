// The feeds' tables live on the protocol floor (protocol/feed-tables.ts): a shard makes them from its
// match's state, and this thread from a frame's JSON (another node's frame); one module for both.
export * from '../../protocol/feed-tables.js';
