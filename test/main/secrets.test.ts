// No secret leaks: a full replay of the recorded match with an access key, a group secret and a
// player-camera secret, with every output switched on (debug logs, replay recording, STATE_DIR,
// metrics, the backend, REST). Every frame (WebSocket and long-polling), every log line, the
// metrics, the replay file, the state files, the REST answers and the backend bodies are searched
// for the three secrets. Group secrets and preview codes come from the cryptographic RNG and are
// compared in constant time (checked in the source, see the last test).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startBackend, type FakeBackend } from '../helpers/backends.js';
import { closeAll, overlay } from '../helpers/clients.js';
import { playReplay, recordedMatch, sendRecords } from '../helpers/recorded.js';
import { startTestService, tempDir, type TestService } from '../helpers/service.js';

const replay = recordedMatch();

const ACCESS_KEY = 'AK-9d1f7c3b5e2a4f60-secret';
const CAM_SECRET = 'CAM-5b8e0c7d2a91f346';
const CODE = 'SECRT1';

let svc: TestService | undefined;
let be: FakeBackend | undefined;
afterAll(async () => {
  closeAll();
  await svc?.close();
  await be?.close();
});

function readAll(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  // Subfolders too: the match events' journal and records (`events/`, docs/events.md). The service
  // writes while this reads: a temporary file (an atomic write's `.tmp`) listed here may be renamed
  // before it is read, and is then read under its final name, or in the next call.
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).flatMap((f) => {
    try {
      const file = path.join(dir, f);
      return fs.statSync(file).isFile() ? [fs.readFileSync(file, 'utf8')] : [];
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  });
}

describe('secrets', () => {
  it('the access key, the group secret and the player-camera secret appear in no frame, log line, metric, replay file, state file, REST answer or backend body', async () => {
    be = await startBackend((req) => {
      if (req.path.startsWith('/cams/')) return { status: 200, json: { nameOverrides: {}, enabledPlayers: [] } };
      return { status: 200, json: {} };
    });
    const replayDir = tempDir('ods-replays-');
    const stateDir = path.join(tempDir(), 'state');
    svc = await startTestService({
      AUTH_KEY: ACCESS_KEY, TRUST_REPLAY_TIMESTAMPS: 'true', RECORD_REPLAYS: 'true', REPLAY_DIR: replayDir, STATE_DIR: stateDir, SNAPSHOT_INTERVAL_MS: '100',
      USE_BACKEND: 'true', BACKEND_URL: be.url, PLAYERCAM_URL: `${be.url}/cams`, LOG_LEVEL: 'trace',
    });
    const withSecrets = {
      ...replay,
      header: { ...replay.header, toolsData: { ...(replay.header.toolsData as object), playercamsInfo: { enable: true, identifier: 'CAMS01', secret: CAM_SECRET, endTime: 1 } } },
    };
    const ws = await overlay(svc.broadcast, CODE, ['websocket']);
    const polling = await overlay(svc.broadcast, CODE, ['polling']);
    const run = await playReplay(withSecrets, { url: svc.ingest, key: ACCESS_KEY, pace: 'instant', groupCode: CODE, to: 1500 });
    const groupSecret = run.secret;
    expect(groupSecret).toMatch(/^[A-Z0-9]{16}$/);
    // A snapshot round writes the state files mid-match.
    await expect.poll(() => fs.existsSync(stateDir) && fs.readdirSync(stateDir).some((f) => f.startsWith('match-')), { timeout: 15_000 }).toBe(true);
    const stateMid = readAll(stateDir);
    // Only a registered match is completed with the backend: the registration answer is in before the end.
    await ws.waitFor((f) => f.isRegistered === true);
    // The feeds for graphics systems, mid-match (a live match's; every feed and format).
    const feedsMid = await Promise.all(['scoreboard', 'players'].flatMap((f) => ['.json', '.csv', '.xml'].map((x) => `/feeds/${CODE}/${f}${x}`)).map(async (p) => {
      const res = await fetch(svc!.rest + p);
      expect(res.status, p).toBe(200);
      return res.text();
    }));
    await sendRecords(run.socket, withSecrets, { pace: 'instant', groupCode: CODE, from: 1500 });
    await ws.waitFor((f) => f.roundPhase === 'game_end', 20_000);
    await polling.waitFor((f) => f.roundPhase === 'game_end', 20_000);
    await expect.poll(() => be!.requests.some((r) => r.path.endsWith('/complete')), { timeout: 15_000 }).toBe(true);
    expect(be.requests.some((r) => r.path.includes(`/cams/api/getNameOverridesAndPlayercams/CAMS01/${CAM_SECRET}`))).toBe(true); // used where it belongs

    const metrics = (await svc.metrics()).text;
    const rest = await Promise.all([`/getTeamInfoForCode?groupCode=${CODE}`, '/status'].map(async (p) => (await fetch(svc!.rest + p)).text()));
    const haystacks: [string, string[]][] = [
      ['websocket frames', ws.raw],
      ['polling frames', polling.raw],
      ['log lines', svc.logs],
      ['metrics', [metrics]],
      ['replay files', readAll(replayDir)],
      ['state files (mid-match and at the end)', [...stateMid, ...readAll(stateDir)]],
      ['REST answers', rest],
      ['feeds (mid-match)', feedsMid],
      ['backend match bodies', be.requests.filter((r) => r.path.startsWith('/system/match/')).map((r) => r.body)],
    ];
    expect(ws.raw.length).toBeGreaterThan(2);
    expect(svc.logs.length).toBeGreaterThan(5);
    expect(readAll(replayDir)[0].length).toBeGreaterThan(100_000);
    expect(stateMid.length).toBeGreaterThan(0);
    for (const [where, texts] of haystacks) {
      for (const [name, secret] of [['access key', ACCESS_KEY], ['group secret', groupSecret], ['player-camera secret', CAM_SECRET]]) {
        const hits = texts.filter((t) => t.includes(secret));
        expect(hits, `${name} in ${where}`).toEqual([]);
      }
    }
    run.socket.close();
  }, 60_000);

  it('group secrets and preview codes come from crypto.randomInt; secrets and keys are compared in constant time', () => {
    // Read from the sources wherever the code lives (a module may move; the rule stays).
    const root = path.resolve(import.meta.dirname, '../../src');
    const sources = fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))
      .map((f) => ({ file: f, text: fs.readFileSync(path.join(root, f), 'utf8') }));
    // Every code or secret drawn from an alphabet (group secrets, preview codes) draws with crypto.randomInt.
    const draws = sources.flatMap(({ file, text }) => text.split('\n').filter((l) => /[A-Z_]+_ALPHABET\[/.test(l)).map((l) => `${file}: ${l.trim()}`));
    expect(draws.some((l) => /SECRET_ALPHABET/.test(l))).toBe(true);
    expect(draws.some((l) => /CODE_ALPHABET/.test(l))).toBe(true);
    for (const l of draws) expect(l).toMatch(/crypto\.randomInt\([A-Z_]+_ALPHABET\.length\)/);
    expect(sources.filter(({ text }) => /Math\.random/.test(text)).map(({ file }) => file)).toEqual([]);
    // The group secret, access key and admin token checks compare digests in constant time:
    // crypto.timingSafeEqual, or a helper that wraps it, in at least three modules.
    const definers = sources.filter(({ text }) => /crypto\.timingSafeEqual\(/.test(text));
    expect(definers.length).toBeGreaterThanOrEqual(1);
    const wrappers = definers.flatMap(({ text }) => [...text.matchAll(/export function (\w+)\([^)]*\)[^{]*\{[^}]*timingSafeEqual/g)].map((m) => m[1]));
    const compare = new RegExp(`\\b(?:timingSafeEqual${wrappers.map((w) => `|${w}`).join('')})\\(`);
    const users = sources.filter(({ text }) => compare.test(text.replace(/export function \w+\([^)]*\)[^{]*\{[^}]*timingSafeEqual[^}]*\}/g, '')));
    expect(users.map(({ file }) => file).length, `constant-time comparisons in ${users.map(({ file }) => file).join(', ')}`).toBeGreaterThanOrEqual(3);
  });
});
