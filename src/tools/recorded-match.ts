// The recorded match's location lives with the playback engine (src/playback/recorded-match.ts), which
// the service's rehearsals use too; this re-export keeps the tools', tests' and benchmarks' imports.
export * from '../playback/recorded-match.js';
