// The faults the torture harness loops (docs/reliability.md, "Torture harness"; issue 35): each on its
// set-up (topology.ts), struck at a random moment of the paced stretch of the match. A fault returns
// the stops it made (a node killed or frozen, and when): a request already in flight then is the
// documented exception to "never two nodes delivering one match at once".
import type { Stop } from './checks.js';
import type { TortureReceiver } from './receiver.js';
import { LEASE_MS, type Topology, type TopologyKind } from './topology.js';

export interface FaultContext {
  topology: Topology;
  receiver: TortureReceiver;
  /** A random duration in [min, max) ms. */
  random(min: number, max: number): number;
  /** The most a receiver outage lasts (--receiver-down-max-ms; 60 s). */
  receiverDownMaxMs: number;
  log(line: string): void;
}

export interface Scenario {
  name: string;
  topology: TopologyKind;
  what: string;
  /** Strikes; resolves once the fault is over (the node back, the receiver up), with the stops made. */
  fault(ctx: FaultContext): Promise<Stop[]>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms)); // a fault's own length: nothing to wait for

export const SCENARIOS: Scenario[] = [
  {
    name: 'kill-embedded',
    topology: 'embedded',
    what: 'SIGKILL of the single node (STATE_DIR, the outbox on disk), restarted on its ports',
    async fault({ topology }) {
      const at = Date.now();
      await topology.nodes.get('solo-1')!.stop('SIGKILL');
      await topology.restart();
      return [{ node: 'solo-1', at }];
    },
  },
  {
    name: 'kill-owner-redis',
    topology: 'redis',
    what: 'SIGKILL of the node that owns the match (Redis); the observer goes on through the balancer to the other',
    async fault({ topology }) {
      const at = Date.now();
      await topology.nodes.get('node-a')!.stop('SIGKILL');
      return [{ node: 'node-a', at }];
    },
  },
  {
    name: 'sentinel-failover-stay',
    topology: 'sentinel',
    what: 'SIGKILL of the Redis primary (Sentinel promotes the replica); the observer stays on its node',
    async fault({ topology }) {
      await topology.sentinel!.kill(0);
      return [];
    },
  },
  {
    name: 'sentinel-failover-move',
    topology: 'sentinel',
    what: 'SIGKILL of the Redis primary and, at the same moment, the observer moved to the other node',
    async fault({ topology }) {
      await Promise.all([topology.sentinel!.kill(0), Promise.resolve(topology.proxy.moveTo(1))]);
      return [];
    },
  },
  {
    name: 'receiver-down',
    topology: 'redis',
    what: 'the webhook receiver down (connection refused) for a random 5 s to --receiver-down-max-ms (60 s)',
    async fault({ receiver, random, receiverDownMaxMs, log }) {
      const ms = random(Math.min(5000, receiverDownMaxMs), receiverDownMaxMs);
      log(`receiver down for ${Math.round(ms)} ms`);
      await receiver.down();
      await sleep(ms);
      await receiver.up();
      return [];
    },
  },
  {
    name: 'sigstop-owner',
    topology: 'redis',
    what: `the owning node frozen (SIGSTOP) past its lease (${LEASE_MS} ms + 2 s) while the balancer moves the observer, then resumed (SIGCONT)`,
    async fault({ topology }) {
      const node = topology.nodes.get('node-a')!;
      const at = Date.now();
      node.proc.kill('SIGSTOP');
      topology.proxy.moveTo(1);
      await sleep(LEASE_MS + 2000);
      node.proc.kill('SIGCONT');
      return [{ node: 'node-a', at, resumedAt: Date.now() }];
    },
  },
];
