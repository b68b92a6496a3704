// The FixtureStore contract against the DATA_DIR adapter, alone and kept in a file (the embedded
// default: DATA_DIR/fixtures.json, written atomically after every change): a new store over the
// same file is the restarted process. A file that is not a fixtures file stops the start.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDirFixtureStore } from '../../../src/main/schedule/adapters/data-dir/fixture-store.js';
import { describeFixtureStoreContract, sampleFixture } from './fixture-store.contract.js';
import { tempDir } from '../../helpers/service.js';

const files = new Map<DataDirFixtureStore, string>();
describeFixtureStoreContract('memory, kept in a file', {
  make: () => {
    const file = path.join(tempDir(), 'fixtures.json');
    const store = new DataDirFixtureStore(file);
    files.set(store, file);
    return store;
  },
  reopen: (first) => new DataDirFixtureStore(files.get(first as DataDirFixtureStore)!),
});

describe('the memory FixtureStore\'s file', () => {
  it('is written atomically (no temporary file left) and private', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'fixtures.json');
    const store = new DataDirFixtureStore(file);
    await store.add([sampleFixture('G1')], 10);
    expect(fs.readdirSync(dir)).toEqual(['fixtures.json']);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ version: 1, fixtures: [sampleFixture('G1')] });
  });

  it('a file that is not a fixtures file stops the start with its name', () => {
    const file = path.join(tempDir(), 'fixtures.json');
    fs.writeFileSync(file, '{"fixtures": ');
    expect(() => new DataDirFixtureStore(file)).toThrow(`${file}: not a fixtures file`);
  });
});
