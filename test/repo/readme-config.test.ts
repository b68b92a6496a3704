// Every setting is documented: the README's configuration table lists each one (npm run docs:env).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/main/base/config.js';

describe('README', () => {
  it('documents every environment variable the service reads', () => {
    const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');
    const missing = Object.keys(SETTINGS).filter((name) => !readme.includes(`| \`${name}\` |`));
    expect(missing).toEqual([]);
  });

  it('starts with the two commands: install and run, then test', () => {
    const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```sh\n([^`]*)```/g)].map((m) => m[1].trim());
    expect(blocks.slice(0, 2)).toEqual(['npm install && npm start', 'npm test']);
  });
});
