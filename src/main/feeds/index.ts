// The feeds' door (docs/feeds.md): flat tables of a frame for graphics systems, and their route.
export { feedFrames, registerFeeds, type BetweenMatches } from './rest.js';
export { ShardFeedTables } from './shard-tables.js';
