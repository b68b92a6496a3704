// The shard thread's entry (the pool's WORKER_URL): a Shard wired to the thread's port, and nothing else.
import { parentPort, workerData } from 'node:worker_threads';
import type { ShardCmd, ShardOut } from '../../protocol/shard-messages.js';
import type { ShardSettings } from '../../protocol/shard-settings.js';
import { Shard } from './shard.js';

if (parentPort) {
  const port = parentPort;
  const shard = new Shard(workerData as ShardSettings, (out: ShardOut) => port.postMessage(out));
  port.on('message', (cmds: ShardCmd[]) => {
    shard.handle(cmds);
    if (shard.exited) port.close(); // the thread ends once its last output is posted
  });
}
