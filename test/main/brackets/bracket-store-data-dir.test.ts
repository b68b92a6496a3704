// The BracketStore contract against the DATA_DIR adapter, kept in a file (the embedded default:
// DATA_DIR/brackets.json): a new store over the same file is the restarted process. The file is
// private (it holds the platform tokens) and written atomically.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDirBracketStore } from '../../../src/main/brackets/adapters/data-dir/bracket-store.js';
import { describeBracketStoreContract, sampleLink } from './bracket-store.contract.js';
import { tempDir } from '../../helpers/service.js';

const files = new Map<DataDirBracketStore, string>();
describeBracketStoreContract('memory, kept in a file', {
  make: () => {
    const file = path.join(tempDir(), 'brackets.json');
    const store = new DataDirBracketStore(file);
    files.set(store, file);
    return store;
  },
  reopen: (first) => new DataDirBracketStore(files.get(first as DataDirBracketStore)!),
  shared: false,
});

describe('the DATA_DIR BracketStore\'s file', () => {
  it('is private and written atomically; one that is not a brackets file stops the start', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'brackets.json');
    await new DataDirBracketStore(file).update((d) => ({ ...d, links: [sampleLink('lnk_1')] }));
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir)).toEqual(['brackets.json']);
    fs.writeFileSync(file, '{"version":1,"fixtures":[]}');
    expect(() => new DataDirBracketStore(file)).toThrow(/not a brackets file of version 1/);
  });
});
