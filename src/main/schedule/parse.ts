// An upload of fixtures, checked (README, "A day's schedule"): JSON (`{ "fixtures": [...] }` or the
// array itself) validated with ajv, or CSV (one row per fixture, the columns of csv.ts) turned into
// the same objects first. Every problem names the fixture (JSON: its index; CSV: its row number,
// the header being row 1) and the field (CSV: the column); nothing is stored unless the whole
// upload is valid (the routes store it in one `add`).
import crypto from 'node:crypto';
import { Ajv, type ValidateFunction } from 'ajv';
import type { Fixture, FixtureMap, FixtureTeam } from './fixture-store.js';
import { CODE_ALPHABET, CODE_LENGTH, FIXTURES_MAX_PER_UPLOAD, FIXTURES_MAX_UPLOAD_BYTES } from './limits.js';

export class UploadError extends Error {
  constructor(message: string, readonly status = 400) {
    super(message);
  }
}

/** One fixture as an upload gives it (JSON, or a CSV row turned into this). */
export interface FixtureInput {
  groupCode?: string;
  teams: Array<{ name: string; tricode: string; url: string; seed?: string; players?: string[] }>;
  bestOf: number;
  maps?: Array<string | { name: string; pick?: 0 | 1 | null }>;
  toolsData?: Record<string, unknown>;
  startsAt?: string | number | null;
  organizationId?: string | null;
}

const str = (max: number, min = 0) => ({ type: 'string', minLength: min, maxLength: max });
const riotId = { type: 'string', pattern: '^[^#]{1,32}#[^#]{1,16}$' };
const team = {
  type: 'object', additionalProperties: false, required: ['name', 'tricode', 'url'],
  properties: { name: str(64, 1), tricode: str(16), url: str(512), seed: str(64), players: { type: 'array', maxItems: 10, items: riotId } },
};
const mapEntry = {
  anyOf: [str(32, 1), { type: 'object', additionalProperties: false, required: ['name'], properties: { name: str(32, 1), pick: { enum: [0, 1, null] } } }],
};
/** The tool settings a fixture may give: what the observer client sends, less the player-camera session (it carries a secret). */
export const FIXTURE_TOOLS = ['tournamentInfo', 'sponsorInfo', 'roundWinBox', 'watermarkInfo', 'timeoutDuration', 'timeoutCounter'] as const;
const fixtureSchema = {
  type: 'object', additionalProperties: false, required: ['teams', 'bestOf'],
  properties: {
    groupCode: { type: 'string', pattern: '^[A-Za-z0-9]{1,64}$' },
    teams: { type: 'array', minItems: 2, maxItems: 2, items: team },
    bestOf: { enum: [1, 3, 5] },
    maps: { type: 'array', maxItems: 5, items: mapEntry },
    toolsData: {
      type: 'object', additionalProperties: false,
      properties: Object.fromEntries(FIXTURE_TOOLS.map((k) => [k, k === 'timeoutDuration' ? { type: 'number', minimum: 0, maximum: 3600 } : { type: 'object' }])),
    },
    startsAt: { type: ['string', 'number', 'null'] },
    organizationId: { type: ['string', 'null'], maxLength: 128 },
  },
};
let validator: ValidateFunction<FixtureInput> | undefined;
/** The fixture validator, compiled on the first upload rather than at every start. */
function fixtureValidator(): ValidateFunction<FixtureInput> {
  return (validator ??= new Ajv({ allErrors: false, strictNumbers: true, allowUnionTypes: true }).compile<FixtureInput>(fixtureSchema));
}

/** Names a field of fixture `index` in the upload's own terms (CSV: its column). */
export type FieldNamer = (path: string) => string;

/** A JSON upload: `{ fixtures: [...] }` or the array. */
export function parseJsonUpload(text: string): unknown[] {
  checkSize(text);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new UploadError(`Invalid JSON: ${(err as Error).message}`);
  }
  const list = Array.isArray(body) ? body : (body as { fixtures?: unknown } | null)?.fixtures;
  if (!Array.isArray(list)) throw new UploadError('The body must be { "fixtures": [ … ] } or an array of fixtures');
  return list as unknown[];
}

export function checkSize(text: string): void {
  if (text.length > FIXTURES_MAX_UPLOAD_BYTES) throw new UploadError(`Upload too large: ${text.length} characters (at most ${FIXTURES_MAX_UPLOAD_BYTES})`);
}

/**
 * Checks every fixture and builds what is stored. `label(i)` names fixture i ("fixture 3", "row 4"),
 * `field` a JSON path in the upload's terms. `taken(code)`: the code is stored or live (a generated
 * code avoids those; a given one that is stored is refused by the store's `add`).
 */
export function buildFixtures(inputs: readonly unknown[], label: (i: number) => string, field: FieldNamer, taken: (code: string) => boolean, now: number): Fixture[] {
  if (inputs.length === 0) throw new UploadError('The upload has no fixtures');
  if (inputs.length > FIXTURES_MAX_PER_UPLOAD) throw new UploadError(`Too many fixtures in one upload: ${inputs.length} (at most ${FIXTURES_MAX_PER_UPLOAD})`);
  const seen = new Map<string, number>();
  const out: Fixture[] = [];
  const validateFixture = fixtureValidator();
  inputs.forEach((input, i) => {
    if (!validateFixture(input)) {
      const e = validateFixture.errors![0];
      const extra = e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})` : '';
      const where = e.keyword === 'required' ? field(`${e.instancePath}/${String((e.params as { missingProperty?: string }).missingProperty)}`) : field(e.instancePath);
      const allowed = e.keyword === 'enum' ? `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map(String).join(', ')}` : null;
      throw new UploadError(`${label(i)}: ${where} ${e.keyword === 'required' ? 'is required' : allowed ?? `${e.message ?? 'is invalid'}${extra}`}`);
    }
    const f = toFixture(input, label(i), field, now);
    const earlier = f.groupCode ? seen.get(f.groupCode) : undefined;
    if (earlier !== undefined) throw new UploadError(`${label(i)}: ${field('/groupCode')} ${f.groupCode} is also the code of ${label(earlier)}`);
    if (f.groupCode) seen.set(f.groupCode, i);
    out.push(f);
  });
  // Codes generated last, away from every given, stored or live one.
  for (const f of out) {
    if (f.groupCode) continue;
    do f.groupCode = generateCode(); while (seen.has(f.groupCode) || taken(f.groupCode));
    seen.set(f.groupCode, -1);
  }
  return out;
}

function toFixture(input: FixtureInput, label: string, field: FieldNamer, now: number): Fixture {
  const teams = input.teams.map((t): FixtureTeam => ({
    name: t.name.trim(), tricode: t.tricode.trim(), url: t.url.trim(), seed: (t.seed ?? '').trim(), players: (t.players ?? []).map((p) => p.trim()),
  })) as [FixtureTeam, FixtureTeam];
  if (sameName(teams[0].name, teams[1].name)) throw new UploadError(`${label}: ${field('/teams/1/name')} is the other team's name too`);
  const bestOf = input.bestOf as 1 | 3 | 5;
  const maps = (input.maps ?? []).map((m): FixtureMap => (typeof m === 'string' ? { name: m.trim(), pick: null } : { name: m.name.trim(), pick: m.pick ?? null }));
  if (maps.length > bestOf) throw new UploadError(`${label}: ${field('/maps')} lists ${maps.length} maps for a best of ${bestOf}`);
  let startsAt: number | null = null;
  if (input.startsAt !== undefined && input.startsAt !== null && input.startsAt !== '') {
    startsAt = typeof input.startsAt === 'number' ? input.startsAt : Date.parse(input.startsAt);
    if (!Number.isFinite(startsAt)) throw new UploadError(`${label}: ${field('/startsAt')} is not a date (ISO 8601, e.g. 2026-11-26T14:00:00Z)`);
  }
  const toolsData = input.toolsData ?? {};
  if (JSON.stringify(toolsData).length > 16_384) throw new UploadError(`${label}: ${field('/toolsData')} is larger than 16384 characters`);
  return {
    groupCode: input.groupCode ? input.groupCode.toUpperCase() : '',
    teams, bestOf, maps, toolsData, startsAt,
    organizationId: input.organizationId ? input.organizationId : null,
    results: [], live: null, reopened: false, createdAt: now, updatedAt: now,
  };
}

/** Team names compare without case and surrounding spaces. */
export function sameName(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

function generateCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[crypto.randomInt(CODE_ALPHABET.length)];
  return code;
}
