// The OutputDelayStore contract against the DATA_DIR adapter kept in a file (the embedded default:
// DATA_DIR/output-delays.json, written atomically after every change): a new store over the same
// file is the restarted process. A file that is not an output delays file stops the start.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDirOutputDelayStore } from '../../../src/main/output-delay/adapters/data-dir/output-delay-store.js';
import { describeOutputDelayStoreContract } from './output-delay-store.contract.js';
import { tempDir } from '../../helpers/service.js';

const files = new Map<DataDirOutputDelayStore, string>();
describeOutputDelayStoreContract('memory, kept in a file', {
  make: () => {
    const file = path.join(tempDir(), 'output-delays.json');
    const store = new DataDirOutputDelayStore(file);
    files.set(store, file);
    return store;
  },
  reopen: (first) => new DataDirOutputDelayStore(files.get(first as DataDirOutputDelayStore)!),
});

describe('the memory OutputDelayStore\'s file', () => {
  it('is written atomically (no temporary file left) and private; a foreign file stops the start', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'output-delays.json');
    await new DataDirOutputDelayStore(file).set('F1', 30, 10);
    expect(fs.readdirSync(dir)).toEqual(['output-delays.json']);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ version: 1, delays: { F1: 30 } });
    fs.writeFileSync(file, '{"not":"it"}');
    expect(() => new DataDirOutputDelayStore(file)).toThrow(/not an output delays file of version 1/);
    fs.writeFileSync(file, '{');
    expect(() => new DataDirOutputDelayStore(file)).toThrow(/move it away/);
  });
});
