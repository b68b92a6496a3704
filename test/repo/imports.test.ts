// The import graph of src/ (scripts/check-imports.mjs, `npm run check:imports`): no circle, no
// arrow up a layer, ports that import nothing above them, main/ and workers/ apart. Run here on the
// tree itself, and on small trees it must reject: a check that cannot fail is no check.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCRIPT = path.join(ROOT, 'scripts/check-imports.mjs');

interface Violation { rule: string; from: string; to: string; message: string }
interface Result { modules: number; imports: number; violations: Violation[] }


function run(root: string, json = true): { status: number | null; stdout: string; result: Result | null } {
  const r = spawnSync(process.execPath, [SCRIPT, '--root', root, ...(json ? ['--json'] : [])], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return { status: r.status, stdout: r.stdout, result: json ? (JSON.parse(r.stdout) as Result) : null };
}

const same = (a: Pick<Violation, 'rule' | 'from' | 'to'>, b: Pick<Violation, 'rule' | 'from' | 'to'>) => a.rule === b.rule && a.from === b.from && a.to === b.to;

const trees: string[] = [];
/** A tree holding src/ with these files (path under src/ → content). */
function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'check-imports-'));
  trees.push(root);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, 'src', file)), { recursive: true });
    fs.writeFileSync(path.join(root, 'src', file), text);
  }
  return root;
}
afterAll(() => { for (const t of trees) fs.rmSync(t, { recursive: true, force: true }); });

describe('the import graph of src/', () => {
  it('breaks no rule', () => {
    const { result } = run(ROOT);
    expect(result!.modules).toBeGreaterThan(100);
    expect(result!.violations.map((v) => v.message), 'npm run check:imports lists them').toEqual([]);
  });

  it('rejects a tree with a circle, a port importing above it, the threads importing each other and arrows up', () => {
    const root = tree({
      'protocol/messages.ts': "import { limit } from '../main/base/config.js';\nexport const m = limit;\n",
      'main/base/config.ts': "import { w } from '../../workers/engine/rule.js';\nexport const limit = w;\n",
      'main/sessions/session-store.ts': "import type { limit } from '../base/config.js';\nexport type Store = typeof limit;\n",
      // Concern rooms (issue 36): another concern only through its index.ts; adapters only from the composition root.
      'main/sessions/index.ts': "export type { Store } from './session-store.js';\nexport { route } from '../rest/routes.js';\n",
      'main/sessions/adapters/memory/session-store.ts': "import type { Store } from '../../session-store.js';\nexport type Memory = Store;\n",
      'main/sessions/logon.ts': "import type { Memory } from './adapters/memory/session-store.js';\nexport type Logon = Memory;\n",
      'main/matches/lifecycle.ts': "import type { Store } from '../sessions/session-store.js';\nimport type { Memory } from '../sessions/adapters/memory/session-store.js';\nexport type L = [Store, Memory];\n",
      'main/sockets/server.ts': "import { route } from '../rest/routes.js';\nexport const server = route;\n",
      'main/rest/routes.ts': "import { server } from '../sockets/server.js';\nexport const route = () => server;\n",
      'main/service.ts': "import './rest/routes.js';\n",
      // One road to the shards (issue 36): the pool is the matches concern's (and the root's).
      'main/shards/pool.ts': 'export class ShardPool {}\n',
      'main/schedule/keeper.ts': "import type { ShardPool } from '../shards/pool.js';\nexport type K = ShardPool;\n",
      // A room's settings part (main/<room>/settings.ts) is on the base layer: it imports only base/,
      // and only main/base/config.ts may import it past its concern's door.
      'main/events/settings.ts': "import { d } from './delivery.js';\nexport const E = d;\n",
      'main/events/delivery.ts': 'export const d = 1;\n',
      'main/standby/relay.ts': "import { E } from '../events/settings.js';\nexport const r = E;\n",
      'main/newfolder/thing.ts': 'export {};\n',
      'main/loose.ts': 'export {};\n',
      'workers/engine/rule.ts': "export { limit } from '../../main/base/config.js';\nexport const w = 1;\n",
      'workers/shard/a.ts': "import type { B } from './b.js';\nexport type A = B[];\n",
      'workers/shard/b.ts': "import type { A } from './a.js';\nexport interface B { a: A }\n",
    });
    const { status, result } = run(root);
    expect(status).toBe(1);
    const got = result!.violations;
    const has = (rule: string, from: string, to: string) => expect(got.some((v) => same(v, { rule, from, to })), `${rule} ${from} → ${to} in ${JSON.stringify(got, null, 1)}`).toBe(true);
    has('floor', 'protocol/messages', 'main/base/config');
    has('floor', 'main/base/config', 'workers/engine/rule');
    has('floor', 'workers/engine/rule', 'main/base/config');
    has('confined', 'main/sessions/session-store', 'main/base/config');
    has('face', 'main/matches/lifecycle', 'main/sessions/session-store'); // past the concern's door
    has('adapter', 'main/matches/lifecycle', 'main/sessions/adapters/memory/session-store'); // an adapter built outside the root
    has('adapter', 'main/sessions/logon', 'main/sessions/adapters/memory/session-store'); // even by its own concern
    has('face', 'main/sessions/index', 'main/rest/routes'); // a door hands on its own room only
    has('layer', 'main/sockets/server', 'main/rest/routes');
    has('private', 'main/schedule/keeper', 'main/shards/pool'); // a second road to the shards, beside routing
    has('layer', 'main/events/settings', 'main/events/delivery'); // a settings part stands on base/ only
    has('face', 'main/standby/relay', 'main/events/settings'); // the Config is read from base/config.ts, not from a part
    has('unplaced', 'main/newfolder/thing', '');
    has('unplaced', 'main/loose', ''); // main/'s root holds only service.ts and index.ts
    const circles = got.filter((v) => v.rule === 'circle').map((v) => v.message);
    expect(circles.some((m) => m.includes('workers/shard/a.ts') && m.includes('workers/shard/b.ts'))).toBe(true); // type-only imports count
    expect(circles.some((m) => m.includes('main/sockets/server.ts') && m.includes('main/rest/routes.ts'))).toBe(true);
    expect(circles.some((m) => m.includes('protocol/messages.ts'))).toBe(false); // a chain that does not come back is no circle
    // The listing a person reads names each one.
    const { stdout } = run(root, false);
    expect(stdout).toContain('circle: ');
    expect(stdout).toContain('port: main/sessions/session-store.ts imports main/base/config.ts');
    expect(stdout).toContain('face: main/matches/lifecycle.ts imports main/sessions/session-store.ts (another concern is imported only through its index.ts: main/sessions/index.ts)');
    expect(stdout).toContain('private: main/schedule/keeper.ts imports main/shards/pool.ts (imported only by main/matches/, main/service.ts, main/index.ts, main/redis-ports.ts, main/shared-ports.ts)');
    expect(stdout).toMatch(/layer: main\/sockets\/server\.ts \[main: infrastructure\] imports main\/rest\/routes\.ts \[main: transports\]: an arrow up/);
  });

  it('passes a small tree that keeps the rules', () => {
    const root = tree({
      'protocol/messages.ts': 'export const m = 1;\n',
      'codec/frame.ts': "import zlib from 'node:zlib';\nexport const z = zlib;\n",
      'main/sessions/session-store.ts': "import type { m } from '../../protocol/messages.js';\nexport type Store = typeof m;\n",
      'main/sessions/index.ts': "export type { Store } from './session-store.js';\n",
      'main/sessions/adapters/memory/session-store.ts': "import type { Store } from '../../session-store.js';\nexport class Memory { s?: Store }\n",
      'main/matches/lifecycle.ts': "import type { Store } from '../sessions/index.js';\nexport type L = Store[];\n",
      // base/config.ts assembles the rooms' settings parts, concerns' (sessions) and others' (sockets) alike.
      'main/base/config.ts': "import { z } from '../../codec/frame.js';\nimport { S } from '../sessions/settings.js';\nimport { L } from '../sockets/settings.js';\nexport const c = [z, S, L];\n",
      'main/base/settings-kit.ts': 'export const s = 1;\n',
      'main/sessions/settings.ts': "import { s } from '../base/settings-kit.js';\nexport const S = s;\n",
      'main/sockets/settings.ts': "import { s } from '../base/settings-kit.js';\nexport const L = s;\n",
      'main/rest/routes.ts': "import type { Store } from '../sessions/index.js';\nimport { c } from '../base/config.js';\nexport const r = (s: Store) => [s, c];\n",
      'main/shards/pool.ts': 'export class ShardPool {}\n',
      'main/matches/routing.ts': "import type { ShardPool } from '../shards/pool.js';\nexport type R = ShardPool;\n",
      'main/service.ts': "import { r } from './rest/routes.js';\nimport { Memory } from './sessions/adapters/memory/session-store.js';\nimport { ShardPool } from './shards/pool.js';\nexport const s = [r, new Memory(), new ShardPool()];\n",
      'workers/shard/a.ts': "import { z } from '../../codec/frame.js';\nimport { m } from '../../protocol/messages.js';\nexport const a = [z, m];\n",
    });
    const { status, result } = run(root);
    expect(result!.violations).toEqual([]);
    expect(status).toBe(0);
  });
});
