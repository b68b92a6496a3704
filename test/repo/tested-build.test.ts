// One source of truth for what is tested (vitest.config.ts, test/global-setup.ts): test files
// import `../../src/....js` and get the built module from dist/, and a dist/ older than src/ is
// refused before any test runs.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as config from '../../src/main/base/config.js';
import { distStaleness } from '../helpers/dist-check.js';
import { tempDir } from '../helpers/service-process.js';

describe('the tested build', () => {
  it('an import of ../src/…js is the module in dist/', async () => {
    const built = path.resolve(import.meta.dirname, '../../dist/main/base/config.js');
    expect(fs.existsSync(built)).toBe(true);
    const fromDist: unknown = await import(/* @vite-ignore */ built);
    expect(fromDist).toBe(config);
  });

  it('dist/ is current now (the global setup checked it)', () => {
    expect(distStaleness()).toEqual([]);
  });

  it('names a source changed after its build, and a missing build', () => {
    const root = tempDir('ods-dist-check-');
    fs.mkdirSync(path.join(root, 'src/main'), { recursive: true });
    fs.mkdirSync(path.join(root, 'dist/main'), { recursive: true });
    for (const f of ['a', 'b', 'c']) fs.writeFileSync(path.join(root, `src/main/${f}.ts`), '');
    fs.writeFileSync(path.join(root, 'dist/main/a.js'), '');
    fs.writeFileSync(path.join(root, 'dist/main/b.js'), '');
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(path.join(root, 'dist/main/b.js'), past, past);
    expect(distStaleness(root)).toEqual(expect.arrayContaining([
      'src/main/b.ts changed after dist/main/b.js was built',
      'dist/main/c.js is missing',
    ]));
    expect(distStaleness(root)).toHaveLength(2);
  });
});
