#!/usr/bin/env node
// The house's import rules, checked (issue 16: no circles, ports that depend on nothing above them):
// every relative import of `src/**/*.ts` (type-only imports and re-exports too: a circle of types is
// still a circle a reader has to walk), read with TypeScript's own scanner (ts.preProcessFile; the
// typescript devDependency, nothing new), against the rules written below. Run by the test suite
// (test/repo/imports.test.ts) and by hand:
//
//   npm run check:imports            a listing of what breaks a rule; exit 1 when something does
//   node scripts/check-imports.mjs [--root DIR] [--json]   (--root: another tree holding src/)
//
// The rules:
// 1. No import circle (a strongly connected set of modules; one path through it is shown).
// 2. FLOORS: which top folders of src/ each may import. protocol/ (what crosses the thread boundary)
//    and codec/ (byte formats: node built-ins only) are floors that both main/ and workers/ may
//    import; they import nothing above them. playback/ (the playback engine and the replay format:
//    node built-ins only) is a floor of main/ (rehearsals), workers/ (a shard thread's warm-up plays
//    the recorded match) and tools/ (the replay tool). main/ (main
//    thread) and workers/ (shard threads) never import each other. tools/ (command-line tools)
//    stand on everything.
// 3. PORTS: a port (an interface of what a second process would share) imports only other ports,
//    protocol/, main/base/awaitable.ts and a concern's index.ts (its adapters and users are above
//    it, never below).
// 4. CONCERNS (issue 36): each concern of main/ is one folder behind its index.ts. A module outside
//    a concern imports it only through that index.ts (`face`); a concern's adapters
//    (main/<concern>/adapters/) are imported only by the composition root (ROOT_MODULES) and by
//    adapters of the same concern (`adapter`); an index.ts hands on its own concern's modules only.
//    One exception: a room's settings part (main/<room>/settings.ts, SETTINGS_PART) sits on the base
//    layer and is imported past its room's door by main/base/config.ts, which assembles the Config.
// 5. STACKS: within a scope, layers from the lowest up; a module imports its own layer and the ones
//    below, never one above. Each module of a scope must have a layer (a new folder is placed here).
// 6. ONE ROAD (issue 36): a module of PRIVATE is imported only by the modules its entry names (the
//    shard pool by the matches concern and the composition root: commands reach a shard only
//    through routing).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Top folders of src/, each with the floors it may import (its own included). */
export const FLOORS = {
  protocol: ['protocol'],
  codec: ['codec'],
  schemas: ['schemas'],
  playback: ['playback'],
  main: ['main', 'protocol', 'codec', 'schemas', 'playback'],
  workers: ['workers', 'protocol', 'codec', 'schemas', 'playback'],
  tools: ['tools', 'main', 'workers', 'protocol', 'codec', 'schemas', 'playback'],
};

/**
 * The concerns of main/ (issue 36: one room per concern): each a folder holding all of it (its
 * ports, their adapters, its REST routes, its dashboard panel), behind its `index.ts`, the one door
 * the rest of the house may use.
 */
export const CONCERNS = ['backend', 'control', 'frames', 'previews', 'sessions', 'output-delay', 'matches', 'standby', 'schedule', 'rehearsal', 'events', 'feeds', 'brackets'];

/** The composition root: the only modules that build adapters (`main/<concern>/adapters/`). */
export const ROOT_MODULES = ['main/service', 'main/index', 'main/redis-ports', 'main/shared-ports'];

/**
 * The ports: interfaces of what a second process would share. Each imports only other ports, the
 * protocol floor, `Awaitable`, and another concern's face (for a type it names).
 */
export const PORTS = [
  'main/control/control-bus', 'main/events/event-outbox', 'main/events/record-store', 'main/events/webhook-endpoint-store',
  'main/frames/frame-bus', 'main/matches/input-log', 'main/matches/match-directory', 'main/matches/match-ownership',
  'main/matches/owner-inbox', 'main/matches/rehearsal-marker', 'main/matches/snapshot-store', 'main/output-delay/output-delay-store',
  'main/previews/preview-store', 'main/previews/team-info-store', 'main/schedule/fixture-store', 'main/sessions/session-store',
  'main/standby/standby-store', 'main/brackets/bracket-store', 'main/brackets/platform',
];

/**
 * Modules only some may import (module id → the patterns of its importers: 'dir/' everything under
 * dir, anything else one module). The shard pool: other concerns send a match's shard a command
 * through the matches concern (matches/routing.ts), never by the pool.
 */
export const PRIVATE = {
  'main/shards/pool': ['main/matches/', ...ROOT_MODULES],
};

/**
 * Each room's settings part (`main/<room>/settings.ts`: its settings' parsers, defaults and meanings)
 * is on the base layer, whatever its room: it imports only base/, so that main/base/config.ts (the one
 * module that may import a part, past a concern's door) assembles the one Config at the bottom of the
 * house, where every room reads it.
 */
export const SETTINGS_PART = 'main/*/settings';
export const SETTINGS_ASSEMBLER = 'main/base/config';
const isSettingsPart = (id) => /^main\/[^/]+\/settings$/.test(id);

/** What a port may import (a module id starting with one of these, or a concern's face). */
export const PORT_IMPORTS = [...PORTS, 'protocol/', 'main/base/awaitable'];

// Module patterns, relative to src/ without `.ts`: 'dir/' is everything under dir, 'dir/*' the files
// directly in dir, 'dir/*/name' the module `name` of each folder of dir, anything else one module. The
// most specific pattern places a module (one module, then 'dir/*/name', then the longest dir).
/** Layer stacks, each listed from its lowest layer up. */
export const STACKS = [
  {
    scope: 'main/',
    layers: [
      // One job each, used everywhere (main/base/): configuration, log, limits, the event bus and its
      // vocabulary, hashing, TLS, the data directory, the descriptor limit, the access key, the
      // logged client address, `Awaitable`; the doors to library internals and uWS (main/internals/).
      ['base', ['main/base/', 'main/internals/', SETTINGS_PART]],
      // One library or one resource each: the kit of REST routes and dashboard panels (http/), the
      // Redis connection, its keys and Lua scripts (redis/), STATE_DIR's files (state-dir/), the
      // socket.io servers (sockets/), the shard threads (shards/: the pool knows no match).
      ['infrastructure', ['main/http/', 'main/redis/', 'main/state-dir/', 'main/sockets/', 'main/shards/']],
      // The concerns the matches stand on: the backend (keys, OAuth, the store), the control bus,
      // the frame bus, previews and team info, sessions, the output delay.
      ['concerns under the matches', ['main/backend/', 'main/control/', 'main/frames/', 'main/previews/', 'main/sessions/', 'main/output-delay/']],
      // The matches: lifetime, routing, ownership, takeover, snapshots, the input log, shard output.
      ['matches', ['main/matches/']],
      // The concerns that stand on the matches: the standby observer, the schedule, rehearsals, the
      // match events (journal, delivery, stream, records), the feeds.
      ['concerns on the matches', ['main/standby/', 'main/schedule/', 'main/rehearsal/', 'main/events/', 'main/feeds/']],
      // The bracket platforms in the loop (brackets/): their matches become fixtures, the series' results go back.
      ['concerns on the schedule', ['main/brackets/']],
      // The transports: observers in (ingest/), overlays out (broadcast/), the REST listener and the
      // operator dashboard. They import the concerns; no concern imports them.
      ['transports', ['main/ingest/', 'main/broadcast/', 'main/admin/', 'main/rest/']],
      // Prometheus metrics: reads every other floor's counters.
      ['metrics', ['main/metrics/']],
      // The composition root and the process's entry: the only modules at main/'s root (a new file
      // there has no layer, and fails the check).
      ['root', ROOT_MODULES],
    ],
  },
  {
    scope: 'workers/',
    layers: [
      // The engine: one file per rule.
      ['engine', ['workers/match/']],
      // Frames from match state: serializers, the delta codec, the clock, the replay recorder.
      ['frames', ['workers/*']],
      // Match events derived from the engine's state (protocol/match-events.ts).
      ['events', ['workers/events/']],
      ['shard', ['workers/shard/']],
    ],
  },
  {
    scope: 'workers/shard/',
    layers: [
      // The shard's parts (changes.ts among them: what follows a change), and the rules' narrow contexts (context.ts).
      ['parts', ['workers/shard/*']],
      // The rules take a narrow context each; they never import the Shard.
      ['rules', ['workers/shard/apply', 'workers/shard/batch', 'workers/shard/commands', 'workers/shard/cycle']],
      // The Shard: state and lifetime, implementing the rules' contexts.
      ['state', ['workers/shard/shard']],
      // The thread's entry: the batch loop and the tick; the warm-up, which drives a Shard of its own as the entry does.
      ['entry', ['workers/shard/thread', 'workers/shard/warm-up']],
    ],
  },
];

/** The concern a module belongs to (main/<concern>/…), or null. */
const concernOf = (id) => { const m = /^main\/([^/]+)\//.exec(id); return m && CONCERNS.includes(m[1]) ? m[1] : null; };

/** `src/**\/*.ts` of `root`, as module ids (relative to src/, no extension). */
function modulesOf(src) {
  const ids = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) ids.push(toId(path.relative(src, p)));
    }
  };
  walk(src);
  return ids.sort();
}

const toId = (rel) => rel.split(path.sep).join('/').replace(/\.(ts|js)$/, '');
const show = (id) => (id.startsWith('../') ? id : id + '.ts');

/** The relative imports of each module: [from, to] with `to` a module id (or a path outside src/). */
function importsOf(src, ids) {
  const edges = [];
  for (const from of ids) {
    const text = fs.readFileSync(path.join(src, from + '.ts'), 'utf8');
    const seen = new Set();
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue; // packages and node built-ins
      const to = toId(path.posix.normalize(path.posix.join(path.posix.dirname(from), fileName)));
      if (!seen.has(to)) edges.push([from, to]);
      seen.add(to);
    }
  }
  return edges;
}

/** The layer of `id` in `stack` by its most specific pattern: [index, name], or null. */
function layerOf(stack, id) {
  let best = null;
  let bestRank = -1;
  stack.layers.forEach(([name, patterns], index) => {
    for (const p of patterns) {
      let rank = -1;
      if (p.endsWith('/*')) {
        const dir = p.slice(0, -1);
        if (id.startsWith(dir) && !id.slice(dir.length).includes('/')) rank = 2 * dir.length + 1;
      } else if (p.endsWith('/')) {
        if (id.startsWith(p)) rank = 2 * p.length;
      } else if (p.includes('/*/')) {
        const [dir, name] = p.split('/*/');
        const rest = id.startsWith(dir + '/') ? id.slice(dir.length + 1).split('/') : [];
        if (rest.length === 2 && rest[1] === name) rank = Number.MAX_SAFE_INTEGER - 1;
      } else if (id === p) {
        rank = Number.MAX_SAFE_INTEGER;
      }
      if (rank > bestRank) { bestRank = rank; best = [index, name]; }
    }
  });
  return best;
}

/** Strongly connected sets of more than one module (or a module importing itself), each as one circle's path. */
function circles(ids, edges) {
  const next = new Map(ids.map((id) => [id, []]));
  for (const [from, to] of edges) if (next.has(to)) next.get(from).push(to);
  // Tarjan's algorithm, iterative (no recursion limit on deep chains).
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const sets = [];
  for (const root of ids) {
    if (index.has(root)) continue;
    const work = [[root, 0]];
    index.set(root, counter); low.set(root, counter); counter++;
    stack.push(root); onStack.add(root);
    while (work.length > 0) {
      const top = work[work.length - 1];
      const [v, i] = top;
      const succ = next.get(v);
      if (i < succ.length) {
        top[1]++;
        const w = succ[i];
        if (!index.has(w)) {
          index.set(w, counter); low.set(w, counter); counter++;
          stack.push(w); onStack.add(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) {
          low.set(v, Math.min(low.get(v), index.get(w)));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) { const u = work[work.length - 1][0]; low.set(u, Math.min(low.get(u), low.get(v))); }
      if (low.get(v) === index.get(v)) {
        const set = [];
        let w;
        do { w = stack.pop(); onStack.delete(w); set.push(w); } while (w !== v);
        if (set.length > 1 || next.get(v).includes(v)) sets.push(set.sort());
      }
    }
  }
  // One circle through each set: the shortest path from its first module back to it.
  return sets.map((set) => {
    const inSet = new Set(set);
    const start = set[0];
    const prev = new Map();
    const queue = [start];
    while (queue.length > 0) {
      const v = queue.shift();
      for (const w of next.get(v)) {
        if (!inSet.has(w)) continue;
        if (w === start) {
          const p = [];
          for (let x = v; x !== undefined; x = x === start ? undefined : prev.get(x)) p.unshift(x);
          return { set, path: [...p, start] };
        }
        if (!prev.has(w)) { prev.set(w, v); queue.push(w); }
      }
    }
    return { set, path: [start, start] };
  });
}

/** Every rule broken in the tree `root` (which holds src/). */
export function check(root) {
  const src = path.join(root, 'src');
  const ids = modulesOf(src);
  const edges = importsOf(src, ids);
  const violations = [];
  const add = (rule, from, to, message) => violations.push({ rule, from, to, message });

  for (const { set, path: p } of circles(ids, edges)) {
    add('circle', p[0], p[1], `circle: ${p.map(show).join(' → ')}${set.length > p.length - 1 ? ` (${set.length} modules in the same knot: ${set.map(show).join(', ')})` : ''}`);
  }
  for (const id of ids) {
    const floor = id.split('/')[0];
    if (!id.includes('/') || !(floor in FLOORS)) add('unplaced', id, '', `unplaced: ${show(id)} is in no floor of FLOORS (scripts/check-imports.mjs): place its folder there`);
    for (const stack of STACKS) {
      if (id.startsWith(stack.scope) && !layerOf(stack, id)) add('unplaced', id, '', `unplaced: ${show(id)} has no layer in the ${stack.scope} stack (scripts/check-imports.mjs): place it there`);
    }
  }
  for (const [from, to] of edges) {
    const fromFloor = from.split('/')[0];
    const toFloor = to.split('/')[0];
    const allowed = FLOORS[fromFloor];
    if (to.startsWith('../')) { add('floor', from, to, `floor: ${show(from)} imports ${to}, outside src/`); continue; }
    if (allowed && !allowed.includes(toFloor)) {
      add('floor', from, to, `floor: ${show(from)} imports ${show(to)} (${fromFloor}/ may import only ${allowed.map((f) => f + '/').join(', ')})`);
      continue;
    }
    if (PORTS.includes(from) && !PORT_IMPORTS.some((p) => (p.endsWith('/') ? to.startsWith(p) : to === p)) && !/^main\/[^/]+\/index$/.test(to)) {
      add('confined', from, to, `port: ${show(from)} imports ${show(to)} (a port imports only ports, protocol/, main/base/awaitable.ts and a concern's index.ts)`);
      continue;
    }
    const importers = PRIVATE[to];
    if (importers && !importers.some((p) => (p.endsWith('/') ? from.startsWith(p) : from === p))) {
      add('private', from, to, `private: ${show(from)} imports ${show(to)} (imported only by ${importers.map((p) => (p.endsWith('/') ? p : show(p))).join(', ')})`);
      continue;
    }
    const fromConcern = concernOf(from);
    const toConcern = concernOf(to);
    if (toConcern && toConcern !== fromConcern) {
      const door = `main/${toConcern}/index`;
      const adapter = to.startsWith(`main/${toConcern}/adapters/`);
      if (adapter && !ROOT_MODULES.includes(from)) {
        add('adapter', from, to, `adapter: ${show(from)} imports ${show(to)} (an adapter is built only by the composition root: ${ROOT_MODULES.map(show).join(', ')})`);
        continue;
      }
      if (!adapter && to !== door && !(from === SETTINGS_ASSEMBLER && isSettingsPart(to))) {
        add('face', from, to, `face: ${show(from)} imports ${show(to)} (another concern is imported only through its index.ts: ${show(door)})`);
        continue;
      }
    }
    if (fromConcern && fromConcern === toConcern && to.startsWith(`main/${toConcern}/adapters/`) && !from.startsWith(`main/${toConcern}/adapters/`)) {
      add('adapter', from, to, `adapter: ${show(from)} imports ${show(to)} (an adapter is built only by the composition root: ${ROOT_MODULES.map(show).join(', ')})`);
      continue;
    }
    if (fromConcern && from === `main/${fromConcern}/index` && toConcern !== fromConcern) {
      add('face', from, to, `face: ${show(from)} imports ${show(to)} (a concern's index.ts hands on its own modules only)`);
      continue;
    }
    for (const stack of STACKS) {
      if (!from.startsWith(stack.scope) || !to.startsWith(stack.scope)) continue;
      const a = layerOf(stack, from);
      const b = layerOf(stack, to);
      if (a && b && b[0] > a[0]) {
        add('layer', from, to, `layer: ${show(from)} [${stack.scope.slice(0, -1)}: ${a[1]}] imports ${show(to)} [${stack.scope.slice(0, -1)}: ${b[1]}]: an arrow up`);
      }
    }
  }
  return { modules: ids.length, imports: edges.length, violations };
}

const HERE = fileURLToPath(import.meta.url);
const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === HERE;
if (isMain) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--root');
  const root = at >= 0 ? path.resolve(args[at + 1]) : path.resolve(path.dirname(HERE), '..');
  const result = check(root);
  if (args.includes('--json')) {
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  } else {
    const { modules, imports, violations } = result;
    process.stdout.write(`check-imports: ${modules} modules, ${imports} imports under ${path.join(root, 'src')}\n`);
    for (const v of violations) process.stdout.write(`  ${v.message}\n`);
    process.stdout.write(violations.length === 0 ? 'no circle, no arrow up: ok\n' : `${violations.length} broken rule(s) (the rules: scripts/check-imports.mjs)\n`);
  }
  process.exitCode = result.violations.length === 0 ? 0 : 1;
}
