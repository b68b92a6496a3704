// Every schema the service validates input with, by validator name, and the ajv options they are
// compiled with: the one list validators.ts compiles at load and scripts/build-validators.mjs
// compiles into code at build time (docs/benchmarks.md, "The test suite's time": compiling them cost
// every shard thread ~0.2 s of CPU at start, and every process ~0.1 s more).
import type { Options } from 'ajv';
import { auxLogonSchema, obsLogonSchema } from './logon.js';
import { toolsMemberSchemas } from './match-data.js';
import { auxEnvelopeSchema, auxTeamRowsSchema, dataSchemas, observerEnvelopeSchema, type Schema } from './messages.js';

/** Numbers must be finite (`strictNumbers`): JSON.parse turns 1e400 into Infinity (messages.ts). */
export const AJV_OPTIONS: Options = { allowUnionTypes: true, strictNumbers: true, allErrors: false };

/** Validator name → schema: `obsLogon`, `auxLogon`, `observerEnvelope`, `auxEnvelope`, `auxTeamRows`, `data:<message type>`, `tools:<member>`. */
export function validatorSchemas(): Record<string, Schema> {
  return {
    obsLogon: obsLogonSchema,
    auxLogon: auxLogonSchema,
    observerEnvelope: observerEnvelopeSchema,
    auxEnvelope: auxEnvelopeSchema,
    auxTeamRows: auxTeamRowsSchema,
    ...Object.fromEntries(Object.entries(dataSchemas).map(([type, schema]) => [`data:${type}`, schema])),
    // A copy of each: the broadcast schema (match-data.ts) shares its member objects with these.
    ...Object.fromEntries(Object.entries(toolsMemberSchemas).map(([member, schema]) => [`tools:${member}`, structuredClone(schema) as Schema])),
  };
}
