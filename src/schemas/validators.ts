// The compiled validators, by the names of validator-schemas.ts. This source compiles them with ajv
// as it loads (so the sources run as they are); the build replaces its output, dist/schemas/validators.js,
// with the same validators as ajv's standalone code (scripts/build-validators.mjs), which loads
// without ajv's compiler. test/schemas/validators.test.ts holds both to the same answers.
import { Ajv, type ValidateFunction } from 'ajv';
import { AJV_OPTIONS, validatorSchemas } from './validator-schemas.js';

const ajv = new Ajv(AJV_OPTIONS);

export const validators: Readonly<Record<string, ValidateFunction>> = Object.fromEntries(
  Object.entries(validatorSchemas()).map(([name, schema]) => [name, ajv.compile(schema)]),
);
