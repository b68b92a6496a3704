// The dirty-mark check (src/workers/match/dirty.ts): after every call that can change a match, its
// cached wire serialization must equal a from-scratch one, so that a rule that mutates a cached
// subtree without touch() fails the test that runs it. watchSerialization() wraps a Match's
// mutating methods with the check (the engine's behaviour is unchanged); watchAllMatches() does so
// for every Match the calling test file creates or restores, and ends with the file.
import { afterAll } from 'vitest';
import { Match } from '../../src/workers/match/match.js';
import { wireSerializeFrame, wireSerializeFromScratch, wireSerializeMatch } from '../../src/workers/wire-serializer.js';

const SERVER_TIME = 1_723_602_000_000;

/** Throws when the cached serialization of `m` differs from a from-scratch one. */
export function checkSerialization(m: Match, what = '', withLayout = false): void {
  const fresh = wireSerializeFromScratch(m, SERVER_TIME);
  const texts = [wireSerializeMatch(m, SERVER_TIME)];
  if (withLayout) texts.push(wireSerializeFrame(m, SERVER_TIME).wire);
  for (const text of texts) {
    if (text === fresh) continue;
    let i = 0;
    while (i < text.length && text[i] === fresh[i]) i++;
    throw new Error(`stale cached serialization${what ? ` after ${what}` : ''} at ${i}: cached …${text.slice(Math.max(0, i - 80), i + 80)}… fresh …${fresh.slice(Math.max(0, i - 80), i + 80)}…`);
  }
}

const MUTATORS = ['apply', 'applyAux', 'advance', 'auxDisconnected', 'applyPlayercams', 'applyMmr', 'stopRunning', 'setRegistered'] as const;

export function watchSerialization(m: Match): Match {
  const target = m as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of MUTATORS) {
    const original = target[name].bind(m);
    target[name] = (...args: unknown[]) => {
      const result = original(...args);
      checkSerialization(m, `${name}(${JSON.stringify(args[0])?.slice(0, 120) ?? ''})`);
      return result;
    };
  }
  checkSerialization(m, 'creation');
  return m;
}

let restore: (() => void) | null = null;

/**
 * Every Match created or restored from now on, until the calling test file ends, is watched. Call it
 * at a test file's top level: a shared worker (vitest.config.ts, `isolate: false`) runs other files
 * after this one with the same Match class and the same helper modules (evaluated once per worker),
 * and a check left on makes their engine work ~20 times slower (a full serialization after every
 * message: the deriver's restore test went from 0.5 s to 33 s and timed out in CI).
 */
export function watchAllMatches(): void {
  afterAll(() => restore?.());
  if (restore) return;
  const statics = Match as unknown as Record<string, (...args: unknown[]) => Match>;
  const originals = { create: statics.create, fromSnapshot: statics.fromSnapshot };
  for (const name of ['create', 'fromSnapshot'] as const) {
    const original = originals[name].bind(Match);
    statics[name] = (...args: unknown[]) => watchSerialization(original(...args));
  }
  restore = () => {
    Object.assign(statics, originals);
    restore = null;
  };
}

/** Whether Matches are watched now (helpers/engine.ts refuses to build one otherwise). */
export function watchingAllMatches(): boolean {
  return restore !== null;
}
