// The StandbyStore adapters against their contract (test/main/ports/standby-store.contract.ts):
// memory, STATE_DIR (a second store on the same directory is the restarted service) and Redis.
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { MemoryStandbyStore } from '../../../src/main/adapters/memory/standby-store.js';
import { RedisConnection } from '../../../src/main/adapters/redis/connection.js';
import { RedisStandbyStore } from '../../../src/main/adapters/redis/standby-store.js';
import { StateFiles } from '../../../src/main/adapters/state-dir/files.js';
import { StateDirStandbyStore } from '../../../src/main/adapters/state-dir/standby-store.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { tempDir } from '../../helpers/service.js';
import { describeStandbyStoreContract } from '../ports/standby-store.contract.js';

const log = pino({ level: 'silent' });

describeStandbyStoreContract('memory', { make: () => new MemoryStandbyStore() });

let dir = '';
let files: StateFiles | null = null;
describeStandbyStoreContract('STATE_DIR', {
  make: () => {
    dir = tempDir('ods-standby-');
    files = new StateFiles(dir, log);
    return new StateDirStandbyStore(files);
  },
  // The restarted service: what was written, read back from the same directory.
  reopen: async () => {
    await files!.flush();
    return new StateDirStandbyStore(new StateFiles(dir, log));
  },
});

let server: RedisServer;
const open: RedisConnection[] = [];
const prefix = `sb${randomUUID().slice(0, 8)}:`;
beforeAll(async () => { server = await startRedisServer(); });
afterAll(async () => { await server?.stop(); });
afterEach(() => { for (const c of open.splice(0)) c.close(); });
async function connect(): Promise<RedisConnection> {
  const conn = await RedisConnection.open({ url: server.url, prefix, nodeId: `node-${open.length}`, timeoutMs: 2000, probeIntervalMs: 1000, log });
  open.push(conn);
  return conn;
}
describeStandbyStoreContract('redis', { make: async () => new RedisStandbyStore(await connect()), reopen: async () => new RedisStandbyStore(await connect()) });
