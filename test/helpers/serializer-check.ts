// The dirty-mark check (src/workers/match/dirty.ts): after every call that can change a match, its
// cached wire serialization must equal a from-scratch one, so that a rule that mutates a cached
// subtree without touch() fails the test that runs it. watchSerialization() wraps a Match's
// mutating methods with the check (the engine's behaviour is unchanged); watchAllMatches() does so
// for every Match the test file creates or restores.
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

let watching = false;

/** Every Match created or restored from now on is watched. */
export function watchAllMatches(): void {
  if (watching) return;
  watching = true;
  const statics = Match as unknown as Record<string, (...args: unknown[]) => Match>;
  for (const name of ['create', 'fromSnapshot']) {
    const original = statics[name].bind(Match);
    statics[name] = (...args: unknown[]) => watchSerialization(original(...args));
  }
}
