// The image an operator runs (README "Docker"), checked without building it (a build needs a base
// image and minutes; docs/benchmarks.md "Image size" has the offline build with buildah and podman):
// the build context leaves out the checkout's installed and built trees and its secrets but keeps
// what the Dockerfile copies; the build stage keeps only the uWebSockets.js binary its Node loads
// (scripts/prune-uws.mjs, run here on a copy of the package's file names); the HEALTHCHECK script
// answers for a real service, plain and TLS, and fails for a port nobody serves.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePorts, startTestService, tempDir, type TestService } from '../helpers/service.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCKERFILE = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
const IGNORE = fs.readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
const UWS_BIN = path.join(ROOT, 'node_modules/uWebSockets.js/dist/bin');

/** Whether a context path is left out by a .dockerignore pattern (the forms this file uses: a name, /name, a*.b, dir/sub). */
function ignored(p: string): boolean {
  return IGNORE.some((pattern) => {
    const glob = pattern.replace(/^\//, '');
    const re = new RegExp('^' + glob.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*') + '(/|$)');
    // A pattern without a slash but with a wildcard (*.pem) matches at the top only, as Docker's does.
    return re.test(p);
  });
}

/** The stages of the Dockerfile: each FROM's lines. */
const stages = DOCKERFILE.split(/^FROM /m).slice(1).map((s) => 'FROM ' + s);

describe('the build context (.dockerignore)', () => {
  it('leaves out the installed and built trees, version control, local data and secrets', () => {
    for (const p of ['node_modules', 'dist', '.git', '.data', '.env', '.env.production', 'replays', 'deploy/certs/privkey.pem', 'server.key', 'coverage']) {
      expect(ignored(p), p).toBe(true);
    }
  });

  it('keeps every path the Dockerfile copies from the context, and the recorded match under data/', () => {
    const sources = [...DOCKERFILE.matchAll(/^COPY (?!--from)(.+)$/gm)].flatMap((m) => m[1].trim().split(/\s+/).slice(0, -1));
    expect(sources).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'tsconfig.json', 'src', 'data/replays', 'scripts/prune-uws.mjs', 'scripts/healthcheck.mjs']));
    for (const s of sources) {
      expect(ignored(s), s).toBe(false);
      expect(fs.existsSync(path.join(ROOT, s)), s).toBe(true);
    }
    expect(ignored('data/replays/icebox-19-rounds.replay')).toBe(false);
    expect(ignored('src/main/index.ts')).toBe(false);
  });
});

describe('the Dockerfile', () => {
  it('prunes uWebSockets.js in the build stage, after the dev dependencies are gone, and checks the kept binary loads', () => {
    expect(stages).toHaveLength(2);
    const build = stages[0];
    const prune = build.indexOf('node scripts/prune-uws.mjs node_modules/uWebSockets.js/dist/bin');
    expect(prune).toBeGreaterThan(build.indexOf('npm prune --omit=dev'));
    expect(build.indexOf('npm prune --omit=dev')).toBeGreaterThan(0);
    expect(build.slice(prune)).toContain(`node --input-type=module -e "await import('uWebSockets.js')"`);
    // The runtime stage takes node_modules from the pruned build stage, on the same base image (same Node).
    expect(stages[1]).toContain('COPY --from=build /app/node_modules ./node_modules');
    expect(stages[1].split('\n')[0]).toBe(build.split('\n')[0].replace(/ AS build$/, ''));
  });

  it('has a HEALTHCHECK running scripts/healthcheck.mjs with the compose file\'s timing', () => {
    const compose = fs.readFileSync(path.join(ROOT, 'deploy/docker-compose.yml'), 'utf8');
    const line = stages[1].split('\n').find((l) => l.startsWith('HEALTHCHECK'));
    expect(line).toBe('HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 CMD ["node", "scripts/healthcheck.mjs"]');
    for (const [option, value] of [['interval', '10s'], ['timeout', '5s'], ['retries', '3'], ['start_period', '20s']]) {
      expect(compose).toContain(`${option}: ${value}`);
    }
    expect(compose).toContain("/status");
  });
});

describe('scripts/prune-uws.mjs', () => {
  const names = fs.readdirSync(UWS_BIN).filter((f) => f.endsWith('.node'));
  const copy = (): string => {
    const dir = tempDir('ods-uws-');
    for (const n of names) fs.writeFileSync(path.join(dir, n), n); // the names, not the 133 MB
    return dir;
  };
  const run = (dir: string, ...args: string[]) => spawnSync(process.execPath, [path.join(ROOT, 'scripts/prune-uws.mjs'), dir, ...args], { encoding: 'utf8' });

  it('the package ships a binary per platform, architecture and ABI, among them linux x64 and arm64 for Node 22 (ABI 127)', () => {
    expect(names.length).toBeGreaterThan(10);
    expect(names).toEqual(expect.arrayContaining(['uws_linux_x64_127.node', 'uws_linux_arm64_127.node']));
  });

  it('keeps exactly the binary of the Node that runs it', () => {
    const dir = copy();
    const r = run(dir);
    expect(r.status, r.stderr).toBe(0);
    expect(fs.readdirSync(dir)).toEqual([`uws_${process.platform}_${process.arch}_${process.versions.modules}.node`]);
    expect(r.stdout).toMatch(/^prune-uws: kept uws_\S+ \(.+\), removed \d+ binaries/);
  });

  it('an arm64 build keeps the arm64 binary of Node 22; a Node without a binary stops the build, removing nothing', () => {
    const arm = copy();
    expect(run(arm, '--target', 'linux_arm64_127').status).toBe(0);
    expect(fs.readdirSync(arm)).toEqual(['uws_linux_arm64_127.node']);
    const none = copy();
    const r = run(none, '--target', 'linux_riscv64_127');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('uws_linux_riscv64_127.node is not in');
    expect(fs.readdirSync(none).sort()).toEqual([...names].sort());
  });
});

describe('scripts/healthcheck.mjs (the image\'s HEALTHCHECK)', () => {
  const services: TestService[] = [];
  afterAll(async () => { await Promise.all(services.map((s) => s.close())); });
  // Asynchronously: the service runs in this process, so a synchronous spawn would stall it.
  const check = (env: Record<string, string>) => new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts/healthcheck.mjs')], { env: { PATH: process.env.PATH, ...env }, stdio: 'ignore' });
    child.on('exit', (code) => resolve(code));
  });

  it('0 for a serving service (plain HTTP with INSECURE, TLS with the generated certificate), 1 for a port nobody serves', { timeout: 60_000 }, async () => {
    const plain = await startTestService();
    services.push(plain);
    expect(await check({ INSECURE: 'true', REST_PORT: String(plain.ports.rest) })).toBe(0);
    expect(await check({ INSECURE: 'true', HOST: '127.0.0.1', REST_PORT: String(plain.ports.rest) })).toBe(0);
    expect(await check({ REST_PORT: String(plain.ports.rest) })).toBe(1); // TLS asked of a plain listener
    const tls = await startTestService({ INSECURE: 'false' });
    services.push(tls);
    expect(await check({ REST_PORT: String(tls.ports.rest) })).toBe(0);
    const [unused] = await freePorts(1);
    expect(await check({ INSECURE: 'true', REST_PORT: String(unused) })).toBe(1);
  });
});
