// @generated-face feeds
export { feedFrames, registerFeeds } from './rest.js';
export { ShardFeedTables } from './shard-tables.js';
