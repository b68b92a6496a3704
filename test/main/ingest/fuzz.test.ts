// Property-based fuzzing (fast-check) of the ingestion listener: thousands of random values and
// mutated real messages of the recorded match go to one match (from its own authenticated
// observer, so they reach the shard and the engine) while two other matches replay the recorded
// match beside it. Afterwards: the process is alive, /status answers, the other matches' final
// states equal their clean runs (recorded clock), and the fuzzed match still takes a valid message.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { overlay } from '../../helpers/clients.js';
import { playReplay, recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { serviceForFile } from '../../helpers/service.js';
import { echoed, yieldToIo } from '../../helpers/waits.js';

const replay = recordedMatch();

const KEY = 'fuzz-key';
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const COUNT = Number(process.env.FUZZ_COUNT ?? 6000);
const FUZZ = 'FUZZ01';
const VICTIMS = ['FZVIC1', 'FZVIC2'];

const svc = serviceForFile({ AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true', SHARD_WORKERS: '2', MAX_MESSAGE_BYTES: '200000' });

type Rec = Record<string, unknown>;
const records = replay.records as Rec[];
const TYPES = [...new Set(records.map((r) => String(r.type))), 'aux_health', 'aux_abilities', 'aux_scoreboard_team', 'toast', 'left_timeout', 'tech_pause', 'swap_left_right', 'toggle_agent_select', '__proto__', 'constructor', 'toString', ''];
const NASTY_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'data', 'type', 'groupCode'];

const nasty = fc.oneof(
  fc.constantFrom(NaN, Infinity, -Infinity, -1, -0, 1e308, -1e308, 2 ** 53, Number.MIN_VALUE, 0.1, '', ' ', '\u0000', '\ud800', 'null', '{}', true, false, null),
  fc.string({ maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.jsonValue({ maxDepth: 4 }),
  fc.dictionary(fc.constantFrom(...NASTY_KEYS), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 30 }),
  fc.constant('x'.repeat(3000)),
);

/** Sets a value at a random path of a copy of `obj` (creating nothing new besides that member). */
function mutate(obj: unknown, choice: number[], value: unknown, remove: boolean): unknown {
  const copy = JSON.parse(JSON.stringify(obj)) as unknown;
  let node = copy;
  for (let depth = 0; depth < choice.length; depth++) {
    if (node === null || typeof node !== 'object') break;
    const keys = Object.keys(node as object);
    if (keys.length === 0) break;
    const key = keys[choice[depth] % keys.length];
    const child = (node as Record<string, unknown>)[key];
    const last = depth === choice.length - 1 || child === null || typeof child !== 'object';
    if (last) {
      if (remove) delete (node as Record<string, unknown>)[key];
      else (node as Record<string, unknown>)[key] = value;
      break;
    }
    node = child;
  }
  return copy;
}

/** One fuzz payload: a mutated real message (as text or object), random JSON, or broken text. */
const payload = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(fc.nat(records.length - 1), fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), nasty, fc.boolean(), fc.boolean()).map(([i, path, value, remove, asObject]) => {
    const m = mutate({ ...records[i], groupCode: FUZZ }, path, value, remove);
    return asObject ? m : JSON.stringify(m);
  }) },
  { weight: 2, arbitrary: fc.tuple(fc.nat(records.length - 1), fc.constantFrom(...TYPES)).map(([i, type]) => JSON.stringify({ ...records[i], groupCode: FUZZ, type })) },
  { weight: 1, arbitrary: fc.tuple(fc.nat(records.length - 1), fc.nat(), fc.string({ maxLength: 5 })).map(([i, at, junk]) => {
    const text = JSON.stringify({ ...records[i], groupCode: FUZZ });
    const cut = at % text.length;
    return text.slice(0, cut) + junk + text.slice(cut + (at % 3));
  }) },
  { weight: 1, arbitrary: fc.record({ obsName: fc.string(), groupCode: fc.constantFrom(FUZZ, ...VICTIMS, ''), type: fc.constantFrom(...TYPES), data: nasty, timestamp: nasty }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: nasty.map((v) => (typeof v === 'string' ? v : JSON.stringify(v) ?? 'undefined')) },
);
const event = fc.oneof({ weight: 12, arbitrary: fc.constant('obs_data') }, { weight: 1, arbitrary: fc.constantFrom('aux_data', 'obs_logon', 'aux_logon', 'logon', 'fuzz_event') });

describe('fuzzing the ingestion listener', () => {
  it(`${COUNT} random and mutated messages (seed ${SEED}): alive, /status answers, the other matches are untouched`, async () => {
    // Clean runs of the victims' match, for comparison.
    const ref = await overlay(svc.broadcast, 'FZREF1');
    const clean = await playReplay(replay, { url: svc.ingest, key: KEY, pace: 'instant', groupCode: 'FZREF1' });
    const expected = await ref.waitFor((f) => f.roundPhase === 'game_end', 20_000);
    clean.socket.close();

    const fuzzFe = await overlay(svc.broadcast, FUZZ);
    const { socket: fuzzer, ack } = await replayObserver(svc.ingest, replay, { key: KEY, groupCode: FUZZ });
    expect(ack.value).toBe(true);
    await sendRecords(fuzzer, replay, { pace: 'instant', groupCode: FUZZ, to: 200 }); // a roster to mutate against

    const victims = await Promise.all(VICTIMS.map((code) => overlay(svc.broadcast, code)));
    const victimRuns = VICTIMS.map((code) => playReplay(replay, { url: svc.ingest, key: KEY, pace: 'instant', groupCode: code }));

    // game_end would end the fuzzed match (and close the fuzzer's socket) early: the fuzz keeps it running.
    const keepRunning = (v: unknown) => (typeof v === 'string' ? v.replaceAll('game_end', 'combat') : v && typeof v === 'object' ? JSON.parse(JSON.stringify(v).replaceAll('game_end', 'combat')) as unknown : v);
    let disconnectReason = '';
    fuzzer.on('disconnect', (reason: string) => { disconnectReason ||= reason; });
    const samples = fc.sample(fc.tuple(event, payload.map(keepRunning)), { numRuns: COUNT, seed: SEED });
    for (let i = 0; i < samples.length; i++) {
      const [name, value] = samples[i];
      fuzzer.emit(name, value);
      if (i % 100 === 0) await yieldToIo();
    }

    const runs = await Promise.all(victimRuns);
    const finals = await Promise.all(victims.map((fe) => fe.waitFor((f) => f.roundPhase === 'game_end', 30_000)));
    for (const final of finals) expect({ ...final, groupCode: 'FZREF1' }).toEqual(expected);
    for (const r of runs) r.socket.close();

    // Alive and answering; the fuzzed match (unless a fuzz message ended it) still applies a valid message.
    const status = await fetch(`${svc.rest}/status`);
    expect(status.status).toBe(200);
    if (await svc.admin.has(FUZZ)) {
      // Every fuzz message was handled once the echo is back: the changes sent after it come after
      // theirs on the same path, so the match's last frame shows them. Two steps, so that the second
      // is a change whatever map the fuzz left.
      await echoed(fuzzer);
      const last = () => fuzzFe.frames[fuzzFe.frames.length - 1];
      fuzzer.emit('obs_data', JSON.stringify({ obsName: 'x', groupCode: FUZZ, type: 'map', data: 'Jam', timestamp: Date.now() }));
      await expect.poll(() => last()?.map, { timeout: 10_000 }).toBe('Lotus');
      fuzzer.emit('obs_data', JSON.stringify({ obsName: 'x', groupCode: FUZZ, type: 'map', data: 'Foxtrot', timestamp: Date.now() }));
      await expect.poll(() => last()?.map, { timeout: 10_000 }).toBe('Breeze');
    }
    const droppedTotal = () => svc.metric('ods_messages_dropped_total'); // every reason, main thread and shards
    await expect.poll(droppedTotal, { timeout: 15_000 }).toBeGreaterThan(COUNT / 4);
    expect(disconnectReason).toBe('');
    expect(svc.logs.filter((l) => l.includes('"level":50')).filter((l) => !l.includes('serialization failed'))).toEqual([]);
    expect(svc.logs.some((l) => l.includes('serialization failed'))).toBe(false);
    fuzzer.close();
  }, 90_000);
});
