// A file's one uninterrupted run of the recording in an embedded service (the "clean run" a fault's
// outcome is compared with), played once and given for any group code: the final frames of two runs
// differ only in their groupCode field, which is substituted (the reference holds it exactly once).
import { expect } from 'vitest';
import { overlay } from './clients.js';
import { playReplay, type Replay } from './recorded.js';
import type { TestService } from './service.js';

const REF_CODE = 'CLEAN0';

/** `service`: the embedded service to play it in, asked for on first use (a file starts it in beforeAll). */
export function cleanFinalFrame(service: () => TestService, replay: Replay): (groupCode: string) => Promise<string> {
  let clean: Promise<string> | undefined;
  return async (groupCode) => {
    clean ??= (async () => {
      const reference = service();
      const fe = await overlay(reference.broadcast, REF_CODE);
      const run = await playReplay(replay, { url: reference.ingest, key: 'k', groupCode: REF_CODE, pace: 'instant' });
      await fe.waitFor((f) => f.roundPhase === 'game_end', 60_000);
      run.socket.close();
      return fe.raw[fe.raw.length - 1];
    })();
    const final = await clean;
    const field = `"groupCode":"${REF_CODE}"`;
    expect(final.split(REF_CODE)).toHaveLength(2);
    expect(final).toContain(field);
    return final.replace(field, `"groupCode":"${groupCode}"`);
  };
}
