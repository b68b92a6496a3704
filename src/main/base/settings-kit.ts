// What a settings part is made of (each room's settings.ts, assembled in base/config.ts): a setting
// is a parser, a default and a one-line meaning; the parsers every room shares are here, a parser
// only one room needs lives in that room's part. A parser's error is one line naming the variable.

export class ConfigError extends Error {}

export type Parser<T> = (raw: string, name: string) => T;

export const fail = (name: string, raw: string, expected: string): never => {
  throw new ConfigError(`${name}: expected ${expected}, got ${JSON.stringify(raw)}`);
};

export const bool: Parser<boolean> = (raw, name) => {
  const v = raw.trim().toLowerCase();
  if (v === 'true' || v === '1' || v === 'yes') return true;
  if (v === 'false' || v === '0' || v === 'no') return false;
  return fail(name, raw, 'true or false');
};
export const int = (min: number, max: number): Parser<number> => (raw, name) => {
  const v = raw.trim();
  if (!/^-?\d+$/.test(v)) return fail(name, raw, `an integer from ${min} to ${max}`);
  const n = Number(v);
  if (n < min || n > max) return fail(name, raw, `an integer from ${min} to ${max}`);
  return n;
};
export const str: Parser<string> = (raw) => raw;
export const url: Parser<string> = (raw, name) => {
  try {
    const u = new URL(raw);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
  } catch {
    fail(name, raw, 'an http:// or https:// URL');
  }
  return raw.replace(/\/+$/, '');
};
export const oneOf = <T extends string>(...values: T[]): Parser<T> => (raw, name) =>
  (values as string[]).includes(raw.trim()) ? (raw.trim() as T) : fail(name, raw, `one of ${values.join(', ')}`);

export interface Setting<T> { parse: Parser<T>; def: T; doc: string }
export const s = <T>(parse: Parser<T>, def: T, doc: string): Setting<T> => ({ parse, def, doc });

/**
 * One room's settings: one group of the README's settings table (`npm run docs:env`), headed by its
 * title and the room's folder (its part is `src/main/<room>/settings.ts`).
 */
export interface SettingsPart<S extends Record<string, Setting<unknown>>> { title: string; room: string; settings: S }
export const part = <S extends Record<string, Setting<unknown>>>(room: string, title: string, settings: S): SettingsPart<S> => ({ title, room, settings });
