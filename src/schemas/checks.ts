// The validators the service checks input with (validators.ts), typed, and the text of a failure.
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { AuxLogonPacket, ObsLogonPacket } from './logon.js';
import type { ToolsMemberName } from './match-data.js';
import type { AuxEnvelope, ObserverEnvelope, TeamRow } from './messages.js';
import { validators } from './validators.js';

function named<T>(name: string): ValidateFunction<T> {
  const v = validators[name];
  if (v === undefined) throw new Error(`no validator ${name}`);
  return v as ValidateFunction<T>;
}

/** Check 1 of docs/client-contract.md 2.3: `type`, `groupCode` and both teams present and of the right type. */
export const isObsLogon = named<ObsLogonPacket>('obsLogon');
export const isAuxLogon = named<AuxLogonPacket>('auxLogon');
export const validateObserverEnvelope = named<ObserverEnvelope>('observerEnvelope');
export const validateAuxEnvelope = named<AuxEnvelope>('auxEnvelope');
export const validateAuxTeamRows = named<TeamRow[]>('auxTeamRows');

function byPrefix<K extends string>(prefix: string): ReadonlyMap<K, ValidateFunction> {
  return new Map(Object.entries(validators).filter(([name]) => name.startsWith(prefix)).map(([name, v]) => [name.slice(prefix.length) as K, v]));
}

/** `data` validators by message type (a Map, so a type like "__proto__" finds nothing). */
export const dataValidators = byPrefix<string>('data:');

/** Validators of the known tools members, from the broadcast schema. */
export const memberValidators = byPrefix<ToolsMemberName>('tools:');

/** Short text for a failed validation (only built on failure), as ajv's `errorsText` writes it. */
export function describeErrors(errors: ErrorObject[] | null | undefined, dataVar = 'data'): string {
  if (!errors || errors.length === 0) return 'No errors';
  return errors.map((e) => `${dataVar}${e.instancePath} ${e.message}`).join(', ');
}
