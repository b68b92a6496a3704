// The WebhookEndpointStore contract against the DATA_DIR adapter kept in a file (the embedded default:
// DATA_DIR/webhook-endpoints.json, written atomically and owner-only after every change: it holds
// the secrets): a new store over the same file is the restarted process. A file that is not a
// webhook endpoints file stops the start.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDirWebhookEndpointStore } from '../../../src/main/events/adapters/data-dir/webhook-endpoint-store.js';
import { describeWebhookEndpointStoreContract, endpointOf } from './webhook-endpoint-store.contract.js';
import { tempDir } from '../../helpers/service.js';

const files = new Map<DataDirWebhookEndpointStore, string>();
describeWebhookEndpointStoreContract('memory, kept in a file', {
  make: () => {
    const file = path.join(tempDir(), 'webhook-endpoints.json');
    const store = new DataDirWebhookEndpointStore(file);
    files.set(store, file);
    return store;
  },
  reopen: (first) => new DataDirWebhookEndpointStore(files.get(first as DataDirWebhookEndpointStore)!),
});

describe('the memory WebhookEndpointStore\'s file', () => {
  it('is written atomically (no temporary file left) and owner-only, also over a stale temporary file; a foreign file stops the start', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'webhook-endpoints.json');
    // A temporary file a crash left behind, readable by all: the write must not inherit its mode.
    fs.writeFileSync(`${file}.${process.pid}.tmp`, 'stale', { mode: 0o644 });
    await new DataDirWebhookEndpointStore(file).add(endpointOf('f1'), 10);
    expect(fs.readdirSync(dir)).toEqual(['webhook-endpoints.json']);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ version: 1, endpoints: [endpointOf('f1')] });
    fs.writeFileSync(file, '{"not":"it"}');
    expect(() => new DataDirWebhookEndpointStore(file)).toThrow(/not a webhook endpoints file of version 1/);
    fs.writeFileSync(file, '{');
    expect(() => new DataDirWebhookEndpointStore(file)).toThrow(/move it away/);
  });
});
