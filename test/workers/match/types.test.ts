// The engine's types and the published contract describe one `match_data` tree.
//
// One source, checked three ways: src/schemas/match-data.ts (the JSON Schema) is the source of
// the serializer and of the published contract; contract/match_data.schema.json and
// contract/match-data.d.ts are generated from it (`npm run contract`, checked current by
// test/tools/match-data-contract.test.ts); test/workers/match/engine-serialize.test.ts checks the serializer writes
// what the engine holds. This file closes the loop: the engine's hand-written `MatchData`
// (src/workers/match/types.ts, what the engine code is checked against) has, path by path, the
// same members, optionality, JSON types and key order as the published `MatchData`, read with the
// TypeScript compiler (test/helpers/type-shape.ts). A member added to one and not the other fails here.
//
// Why compare rather than generate the engine's types: they say more than the contract where the
// engine guarantees more than a client may send (the schema also checks the client's `toolsData`),
// listed in ENGINE_NARROWER with the reason; everything else must be equal.
//
// To add a member to match_data:
//  1. src/schemas/match-data.ts: add it to its object, in key order, and to `required` unless optional;
//  2. `npm run contract` (rewrites contract/match_data.schema.json and contract/match-data.d.ts);
//  3. src/workers/match/types.ts: add it to the interface at the same position (`m?: T` if optional);
//  4. the engine writes it (create.ts and the concern modules), so the serializer tests see it.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { typeShapes, type Shape } from '../../helpers/type-shape.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** Paths where the engine's type is deliberately narrower than the published one: engine view, contract view, why. */
const ENGINE_NARROWER: Record<string, [engine: string, contract: string, why: string]> = {
  'teams[].players[].iconNameSuffix': [
    '"" | "Cam" | "Evolution" | "NotDeadYet" | "Targeting"', 'string',
    'the engine writes one of the suffixes of docs/match-rules.md 12; the contract leaves room for new ones',
  ],
  'tools.timeoutCounter.left': ['number', '?number', 'buildTools sets left and right from max (2.2 step 3); a client may send max alone'],
  'tools.timeoutCounter.right': ['number', '?number', 'as left'],
  'tools.watermarkInfo.spectraWatermark': ['boolean', '?boolean', 'buildTools always sets it (2.2 step 5); a client may leave it out'],
  'tools.watermarkInfo.customTextEnabled': ['boolean', '?boolean', 'as spectraWatermark'],
};

/** `teams[0].players[].x` and `teams[1].players[].x` are one entry of ENGINE_NARROWER. */
const listed = (p: string): string => p.replace(/^teams\[\d\]/, 'teams[]');

function shapes(): { engine: Shape; contract: Shape } {
  const [engine, contract] = typeShapes([
    { file: path.join(ROOT, 'src/workers/match/types.ts'), typeName: 'MatchData' },
    { file: path.join(ROOT, 'contract/match-data.d.ts'), typeName: 'MatchData' },
  ]);
  return { engine, contract };
}

describe('the engine types and the published match_data types', () => {
  const { engine, contract } = shapes();

  it('are read in full (the comparison is not vacuous)', () => {
    expect(engine.get('serverTime')).toBe('number');
    expect(engine.get('agentSelectStartTime')).toBe('?number'); // `number | undefined` is optional
    expect(contract.get('teams')).toBe('tuple(2)');
    expect(contract.get('teams[1].players[].abilities.grenade')).toBe('boolean | number');
    expect(contract.get('tools.[string]')).toBe('unknown');
    expect(contract.get('teams[0].roundRecord[].type')).toBe('"defused" | "detonated" | "kills" | "lost" | "timeout" | "upcoming"');
    expect(contract.size).toBeGreaterThan(200);
  });

  it('have the same member paths in the same order', () => {
    expect([...engine.keys()]).toEqual([...contract.keys()]);
  });

  it('have the same optionality and JSON types everywhere but the listed narrowings', () => {
    const differ: Record<string, string> = {};
    for (const [p, view] of contract) {
      const narrower = ENGINE_NARROWER[listed(p)];
      if (narrower) {
        expect([p, engine.get(p), view]).toEqual([p, narrower[0], narrower[1]]); // the list stays true
      } else if (engine.get(p) !== view) {
        differ[p] = `engine ${engine.get(p) ?? '(absent)'}, contract ${view}`;
      }
    }
    expect(differ).toEqual({});
    for (const p of Object.keys(ENGINE_NARROWER)) {
      expect([...contract.keys()].some((c) => listed(c) === p), `${p} is a contract path`).toBe(true);
    }
  });
});
