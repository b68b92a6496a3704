// The recorded 19-round match the project ships (data/README.md): the one place that knows where it
// lives (src/tools/recorded-match.ts re-exports it). Rehearsals (src/main/rehearsal), tests, benchmarks
// and `npm run replay` load it through here. The path is resolved from this module's own folder, which
// sits two levels below the project root both as src/playback (tsx, vitest) and as dist/playback.
import { fileURLToPath } from 'node:url';
import { readReplay, type Replay } from './replay-file.js';

export const RECORDED_MATCH_PATH = fileURLToPath(new URL('../../data/replays/icebox-19-rounds.replay', import.meta.url));

/** A fresh parse of the recorded match (callers may mutate what they get). */
export function recordedMatch(): Replay {
  return readReplay(RECORDED_MATCH_PATH);
}
