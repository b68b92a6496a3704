// Optional replay recording (docs/match-rules.md 15): the file holds the header and every applied
// message, never the access key, the group secret or the player-camera secret; and replaying the
// recorded file gives the same final state as the original run.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readReplay } from '../../src/tools/replay-file.js';
import { closeAll, overlay } from '../helpers/clients.js';
import { playReplay, recordedMatch } from '../helpers/recorded.js';
import { startTestService, tempDir, type TestService } from '../helpers/service.js';

const original = recordedMatch();

const KEY = 'recording-access-key-123';
const CAM_SECRET = 'playercam-secret-XYZ987';
let svc: TestService;
let replayDir: string;

beforeAll(async () => {
  replayDir = tempDir('ods-replays-');
  svc = await startTestService({ AUTH_KEY: KEY, RECORD_REPLAYS: 'true', REPLAY_DIR: replayDir, TRUST_REPLAY_TIMESTAMPS: 'true' });
});
afterAll(async () => {
  closeAll();
  await svc?.close();
});

describe('replay recording', () => {
  it('records every message without secrets, and the recording replays to the same final state', async () => {
    const withCams = {
      ...original,
      header: { ...original.header, toolsData: { playercamsInfo: { enable: true, identifier: 'cam-id', secret: CAM_SECRET, endTime: 123 } } },
    };
    const fe = await overlay(svc.broadcast, 'RECRD1');
    const run = await playReplay(withCams, { url: svc.ingest, key: KEY, pace: 'instant', groupCode: 'RECRD1' });
    const finalA = await fe.waitFor((f) => f.roundPhase === 'game_end', 30_000);
    run.socket.close();
    await expect.poll(() => svc.metric('ods_live_matches')).toBe(0);

    const files = fs.readdirSync(replayDir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^Match_RECRD1_\d+\.replay$/);
    // The shard's write stream finishes after the match closed it: wait until every record is in the file.
    const recordsInFile = () => { try { return readReplay(path.join(replayDir, files[0])).records.length; } catch { return -1; } };
    await expect.poll(recordsInFile).toBe(original.records.length);
    const text = fs.readFileSync(path.join(replayDir, files[0]), 'utf8');
    for (const secret of [KEY, run.secret, CAM_SECRET]) expect(text).not.toContain(secret);
    expect(fs.statSync(path.join(replayDir, files[0])).mode & 0o077).toBe(0);
    const recorded = readReplay(path.join(replayDir, files[0]));
    expect(recorded.header).toMatchObject({ groupCode: 'RECRD1', obsName: original.header.obsName, clientVersion: original.header.clientVersion });
    expect(recorded.header).not.toHaveProperty('key');
    expect(recorded.header).not.toHaveProperty('groupSecret');
    expect((recorded.header.toolsData as { playercamsInfo: Record<string, unknown> }).playercamsInfo).toEqual({ enable: true, identifier: 'cam-id', endTime: 123 });
    expect(recorded.records).toHaveLength(original.records.length);
    expect(recorded.records.map((r) => r.type)).toEqual(original.records.map((r) => r.type));

    // Play the recording back into a fresh match: same final state.
    const fe2 = await overlay(svc.broadcast, 'RECRD1');
    const run2 = await playReplay(recorded, { url: svc.ingest, key: KEY, pace: 'instant' });
    const finalB = await fe2.waitFor((f) => f.roundPhase === 'game_end', 30_000);
    run2.socket.close();
    expect(finalB).toEqual(finalA);
  }, 60_000);
});
