// The replay format lives with the playback engine (src/playback/replay-file.ts), which the service's
// rehearsals use too; this re-export keeps the tools' and tests' imports as they were.
export * from '../playback/replay-file.js';
