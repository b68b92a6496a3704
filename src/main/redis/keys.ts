// Every Redis key and channel the service uses, in one place (REDIS_KEY_PREFIX first, default
// `ods:`). docs/architecture.md, "Scale-out on Redis", lists them with their meaning.
//
// One Redis (or Valkey) primary, optionally with replicas and Sentinel; not Redis Cluster: the
// claim and session scripts touch several keys at once. Per-match channels use sharded pub/sub
// (SPUBLISH) anyway, so a node receives only the matches it subscribed to.

export function redisKeys(prefix: string) {
  return {
    // PreviewStore: the record's JSON under its code (PX = PREVIEW_TTL_MS); a sorted set of codes by
    // expiry time and a hash of their byte sizes bound the count and the bytes across nodes.
    preview: (code: string) => `${prefix}preview:${code}`,
    previewIndex: `${prefix}previews`,
    previewBytes: `${prefix}previews:bytes`,
    // The sum of the sizes in previewBytes (kept by the same script: the byte bound in O(1)).
    previewTotalBytes: `${prefix}previews:total`,
    // TeamInfoStore: the entry's JSON under the group code (PX = TEAM_INFO_TTL_MS).
    teamInfo: (groupCode: string) => `${prefix}team:${groupCode}`,
    // A sorted set of the team-info codes by expiry time (size() without a SCAN of the keyspace).
    teamInfoIndex: `${prefix}teams`,
    // SessionStore: a session's JSON under its id (PX while resumable); the ids of a player's held
    // auxiliary sessions for a match id (a set: putAuxiliary refuses while it is not empty).
    session: (id: string) => `${prefix}session:${id}`,
    auxHolder: (matchId: string, playerId: string) => `${prefix}aux:${matchId}:${playerId}`,
    // The session ids of a group code's observers and of a match id's auxiliaries (sets, kept by the
    // session scripts), so that `end` finds them across nodes.
    sessionsOfGroup: (groupCode: string) => `${prefix}sessions:g:${groupCode}`,
    sessionsOfMatch: (matchId: string) => `${prefix}sessions:m:${matchId}`,
    // MatchDirectory: the lease (owner node and epoch, PX = REDIS_LEASE_TTL_MS), the record, the set
    // of live codes, live matches per key id, and the epoch counter.
    lease: (groupCode: string) => `${prefix}lease:${groupCode}`,
    match: (groupCode: string) => `${prefix}match:${groupCode}`,
    matches: `${prefix}matches`,
    // The epoch a code's last match ended under (its release; PX = ENDED_TTL_MS, an hour): a node
    // frozen past its lease that wakes up with an older epoch of the code is told its match is gone,
    // not that Redis lost it (matches/adapters/redis/lua/directory.ts RENEW).
    ended: (groupCode: string) => `${prefix}ended:${groupCode}`,
    perKey: (keyId: string) => `${prefix}perkey:${keyId}`,
    epoch: `${prefix}epoch`,
    // MatchOwnership of a match instance's outputs (matches/adapters/redis/lua/output-leases.ts): the lease of one match's
    // outputs ("<node> <epoch>", PX = REDIS_LEASE_TTL_MS), and the set of matchKeys whose outputs
    // are unsettled (an endpoint still lacks events): one without a lease is an outputs orphan.
    outputLease: (matchKey: string) => `${prefix}olease:${matchKey}`,
    outputs: `${prefix}outputs`,
    // SnapshotStore: the latest snapshot of a live match (a hash: `epoch`, and `data`, the snapshot's JSON).
    snapshot: (groupCode: string) => `${prefix}snap:${groupCode}`,
    /** A match's standby observer (standby-store.ts): a hash of armedUntil, digest, primary. */
    standby: (groupCode: string) => `${prefix}standby:${groupCode}`,
    /** FixtureStore (fixture-store.ts): a hash of group code → the fixture's JSON (no expiry: operator data). */
    fixtures: `${prefix}fixtures`,
    /** Incremented by every write of the fixtures hash: a node lists them again only when it moved. */
    fixturesRevision: `${prefix}fixtures:rev`,
    /** OutputDelayStore (output-delay-store.ts): a hash of group code → seconds (no expiry: operator data), and its revision. */
    outputDelays: `${prefix}odelays`,
    outputDelaysRevision: `${prefix}odelays:rev`,
    /** WebhookEndpointStore (webhook-endpoint-store.ts): a hash of endpoint id → its JSON, secret included (no expiry: operator data), and its revision. */
    webhookEndpoints: `${prefix}whendpoints`,
    webhookEndpointsRevision: `${prefix}whendpoints:rev`,
    /** BracketStore (brackets/bracket-store.ts): the linked brackets' document, JSON, tokens included (no expiry: operator data). */
    brackets: `${prefix}brackets`,
    /** Which node reads and reports the linked brackets: its node id (PX = REDIS_LEASE_TTL_MS, renewed by it). */
    bracketsLead: `${prefix}brackets:lead`,
    /** EventOutbox (event-outbox.ts): a match's events, a stream with entry ids `0-<seq>` (PX = EVENTS_RETENTION_MS). */
    eventStream: (matchKey: string) => `${prefix}ev:${matchKey}`,
    /** The webhook endpoints' cursors of a match: a hash, endpoint id → the last seq it has. */
    eventCursors: (matchKey: string) => `${prefix}evcur:${matchKey}`,
    /** The epoch a match's outputs are held at (a number, raised by every write and by taking the match's outputs lease; PX = EVENTS_RETENTION_MS): events/adapters/redis/lua/event-outbox.ts FENCE. */
    eventFence: (matchKey: string) => `${prefix}evfence:${matchKey}`,
    /** InputLog (input-log.ts): a match's inputs after its stored snapshot, a stream with entry ids `<epoch>-<n>` (`<epoch>-0`: a fence; PX = its TTL, refreshed by every write). */
    inputLog: (groupCode: string) => `${prefix}inlog:${groupCode}`,
    /** RecordStore (record-store.ts): a match's record, a hash (s: summary, r: record, g: group code; PX: the rest of EVENTS_RETENTION_MS). */
    record: (matchKey: string) => `${prefix}rec:${matchKey}`,
    /** The records' prefix, for the scripts that list and prune them. */
    recordPrefix: `${prefix}rec:`,
    /** The kept records: a sorted set, matchKey → storedAt (epoch ms), pruned by score. */
    recordIndex: `${prefix}recs`,
    /** DeadLetterStore: the webhook dead letters, a list capped at the newest 1,000 (PX = EVENTS_RETENTION_MS after the last). */
    deadLetters: `${prefix}deadletters`,

    // Channels. Directory changes and control messages go to every node (classic pub/sub).
    directoryChannel: `${prefix}dir`,
    controlChannel: `${prefix}control`,
    /** A match's frames from its owner to the nodes watching it (sharded). */
    framesChannel: (groupCode: string) => `${prefix}f:${groupCode}`,
    /** To a match's owner: a watching node's keyframe requests (sharded; frames/adapters/redis/frame-messages.ts). */
    keyframeChannel: (groupCode: string) => `${prefix}k:${groupCode}`,
    /** To a match's owner: ingestion data that reached another node (sharded). */
    ownerChannel: (groupCode: string) => `${prefix}o:${groupCode}`,
    /** A node's own probe channel (connection.ts). */
    probeChannel: (nodeId: string) => `${prefix}probe:${nodeId}`,
  } as const;
}

export type RedisKeys = ReturnType<typeof redisKeys>;
