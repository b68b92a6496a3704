// The WebhookEndpointStore contract against the memory adapter kept in a file (the embedded default:
// DATA_DIR/webhook-endpoints.json, written atomically and owner-only after every change: it holds
// the secrets): a new store over the same file is the restarted process. A file that is not a
// webhook endpoints file stops the start.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryWebhookEndpointStore } from '../../../src/main/events/adapters/memory/webhook-endpoint-store.js';
import { describeWebhookEndpointStoreContract, endpointOf } from './webhook-endpoint-store.contract.js';
import { tempDir } from '../../helpers/service.js';

const files = new Map<MemoryWebhookEndpointStore, string>();
describeWebhookEndpointStoreContract('memory, kept in a file', {
  make: () => {
    const file = path.join(tempDir(), 'webhook-endpoints.json');
    const store = new MemoryWebhookEndpointStore(file);
    files.set(store, file);
    return store;
  },
  reopen: (first) => new MemoryWebhookEndpointStore(files.get(first as MemoryWebhookEndpointStore)!),
});

describe('the memory WebhookEndpointStore\'s file', () => {
  it('is written atomically (no temporary file left) and owner-only, also over a stale temporary file; a foreign file stops the start', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'webhook-endpoints.json');
    // A temporary file a crash left behind, readable by all: the write must not inherit its mode.
    fs.writeFileSync(`${file}.${process.pid}.tmp`, 'stale', { mode: 0o644 });
    await new MemoryWebhookEndpointStore(file).add(endpointOf('f1'), 10);
    expect(fs.readdirSync(dir)).toEqual(['webhook-endpoints.json']);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ version: 1, endpoints: [endpointOf('f1')] });
    fs.writeFileSync(file, '{"not":"it"}');
    expect(() => new MemoryWebhookEndpointStore(file)).toThrow(/not a webhook endpoints file of version 1/);
    fs.writeFileSync(file, '{');
    expect(() => new MemoryWebhookEndpointStore(file)).toThrow(/move it away/);
  });
});
