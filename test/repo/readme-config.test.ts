// Every setting is documented: the README's settings tables, one per room's settings part, are the
// ones `npm run docs:env` prints (src/tools/settings-table.ts), each setting in its room's table.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS, SETTINGS_PARTS } from '../../src/main/base/config.js';
import { settingsTables } from '../../src/tools/settings-table.js';

describe('README', () => {
  it('documents every environment variable the service reads', () => {
    const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');
    const missing = Object.keys(SETTINGS).filter((name) => !readme.includes(`| \`${name}\` |`));
    expect(missing).toEqual([]);
  });

  it('holds the settings tables as npm run docs:env prints them, one per room, every setting in one', () => {
    const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');
    expect(readme.includes(settingsTables()), 'run npm run docs:env and paste its output into the README').toBe(true);
    const listed = SETTINGS_PARTS.flatMap((part) => Object.keys(part.settings));
    expect(listed.sort()).toEqual(Object.keys(SETTINGS).sort());
    expect(new Set(listed).size).toBe(listed.length);
    for (const part of SETTINGS_PARTS) {
      expect(fs.existsSync(path.resolve(import.meta.dirname, `../../src/main/${part.room}/settings.ts`)), part.room).toBe(true);
    }
  });

  it('starts with the two commands: install and run, then test', () => {
    const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```sh\n([^`]*)```/g)].map((m) => m[1].trim());
    expect(blocks.slice(0, 2)).toEqual(['npm install && npm start', 'npm test']);
  });
});
