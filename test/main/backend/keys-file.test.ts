// KEYS_FILE against the running service: valid, hashed and expired keys in the validity chain
// (observer logon, PUT /createPreview), the organisation they give a match, /getOrgForKey, reload
// on change without a restart (rewrite in place, replace by rename, invalid content keeps the
// previous keys), and a missing file stopping the start.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import { closeAll, overlay, observer } from '../../helpers/clients.js';
import { startTestService, tempDir, type TestService } from '../../helpers/service.js';

const AUTH_KEY = 'local-auth-key-1';
const PLAIN_KEY = 'plain-org-key-aaaa';
const HASHED_KEY = 'hashed-org-key-bbbb';
const EXPIRED_KEY = 'expired-org-key-cccc';
const LATER_KEY = 'expires-later-key-dddd';
const NEW_KEY = 'added-while-running-eeee';
const sha256 = (s: string) => crypto.createHash('sha256').update(s, 'utf8').digest('hex');

const baseKeys = () => [
  { key: PLAIN_KEY, organizationId: 'org-a', organizationName: 'Org A', isSupporter: true },
  { key: `sha256:${sha256(HASHED_KEY)}`, organizationId: 'org-b', organizationName: 'Org B', isSupporter: false },
  { key: EXPIRED_KEY, organizationId: 'org-c', organizationName: 'Org C', isSupporter: false, expiresAt: '2020-01-01T00:00:00Z' },
  { key: LATER_KEY, organizationId: 'org-d', organizationName: 'Org D', expiresAt: Date.now() + 3_600_000 },
];

const TEAMS = {
  leftTeam: { name: 'Left', tricode: 'LFT', url: '', attackStart: true },
  rightTeam: { name: 'Right', tricode: 'RGT', url: '', attackStart: false },
};

const sockets: Socket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
  closeAll();
});

async function observerLogon(svc: TestService, key: string, groupCode: string): Promise<{ value: boolean; reason: string }> {
  const { socket, ack } = await observer(svc.ingest, { obsName: 'Obs', key, groupCode, ...TEAMS });
  sockets.push(socket);
  return ack;
}

async function org(svc: TestService, key: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${svc.rest}/getOrgForKey?key=${encodeURIComponent(key)}`);
  return { status: res.status, body: await res.text() };
}

describe('KEYS_FILE', () => {
  let svc: TestService;
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = tempDir('ods-keys-');
    file = path.join(dir, 'keys.json');
    fs.writeFileSync(file, JSON.stringify({ keys: baseKeys() }, null, 2));
    svc = await startTestService({ AUTH_KEY, KEYS_FILE: file });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('observer logon: plain and hashed keys are valid, an expired one is refused as "Expired Key", an unknown one as "Invalid Key"', async () => {
    expect(await observerLogon(svc, PLAIN_KEY, 'KFPLN1')).toMatchObject({ value: true, reason: expect.stringMatching(/^[A-Z0-9]{16}$/) });
    expect(await observerLogon(svc, HASHED_KEY, 'KFHSH1')).toMatchObject({ value: true });
    expect(await observerLogon(svc, LATER_KEY, 'KFLTR1')).toMatchObject({ value: true });
    expect(await observerLogon(svc, EXPIRED_KEY, 'KFEXP1')).toEqual({ type: 'authenticate', value: false, reason: 'Expired Key' });
    expect(await observerLogon(svc, 'no-such-key-zzzz', 'KFUNK1')).toEqual({ type: 'authenticate', value: false, reason: 'Invalid Key' });
    // The hashed entry's text itself is not a key.
    expect(await observerLogon(svc, `sha256:${sha256(HASHED_KEY)}`, 'KFHSH2')).toMatchObject({ value: false, reason: 'Invalid Key' });
    // AUTH_KEY still comes first in the chain.
    expect(await observerLogon(svc, AUTH_KEY, 'KFAUTH')).toMatchObject({ value: true });
  });

  it("a file key gives the match its organisation and supporter status", async () => {
    const fe = await overlay(svc.broadcast, 'KFORG1');
    expect((await observerLogon(svc, PLAIN_KEY, 'KFORG1')).value).toBe(true);
    const frame = await fe.waitFor((f) => f.groupCode === 'KFORG1');
    expect(frame).toMatchObject({ organizationId: 'org-a', orgIsSupporter: true });
    const fe2 = await overlay(svc.broadcast, 'KFORG2');
    expect((await observerLogon(svc, HASHED_KEY, 'KFORG2')).value).toBe(true);
    expect(await fe2.waitFor((f) => f.groupCode === 'KFORG2')).toMatchObject({ organizationId: 'org-b', orgIsSupporter: false });
  });

  it('PUT /createPreview accepts file keys and refuses expired ones', async () => {
    const put = (key: string) => fetch(`${svc.rest}/createPreview`, { method: 'PUT', body: JSON.stringify({ key, ...TEAMS }) });
    expect((await put(HASHED_KEY)).status).toBe(200);
    expect((await put(EXPIRED_KEY)).status).toBe(403);
  });

  it('GET /getOrgForKey answers for file keys (200 {id,name,isSupporter}); expired, unknown and AUTH_KEY are 401', async () => {
    expect(await org(svc, PLAIN_KEY)).toEqual({ status: 200, body: JSON.stringify({ id: 'org-a', name: 'Org A', isSupporter: true }) });
    expect(await org(svc, HASHED_KEY)).toEqual({ status: 200, body: JSON.stringify({ id: 'org-b', name: 'Org B', isSupporter: false }) });
    expect(await org(svc, LATER_KEY)).toEqual({ status: 200, body: JSON.stringify({ id: 'org-d', name: 'Org D', isSupporter: false }) });
    for (const key of [EXPIRED_KEY, 'no-such-key-zzzz', AUTH_KEY]) expect(await org(svc, key)).toEqual({ status: 401, body: '401 Unauthorized' });
  });

  it('reloads on change without a restart: in-place rewrite, replacement by rename, and invalid content keeps the previous keys', async () => {
    // 1. Rewritten in place: a key added, the plain key removed.
    fs.writeFileSync(file, JSON.stringify([...baseKeys().slice(1), { key: NEW_KEY, organizationId: 'org-e', organizationName: 'Org E' }]));
    await expect.poll(async () => (await org(svc, NEW_KEY)).status, { timeout: 15_000, interval: 100 }).toBe(200);
    expect((await org(svc, PLAIN_KEY)).status).toBe(401);
    expect(await observerLogon(svc, PLAIN_KEY, 'KFRLD1')).toMatchObject({ value: false, reason: 'Invalid Key' });
    expect(await observerLogon(svc, NEW_KEY, 'KFRLD2')).toMatchObject({ value: true });

    // 2. Replaced the way editors save (write a new file, rename it over the old one): the expired key renewed.
    const renewed = baseKeys().map((k) => (k.key === EXPIRED_KEY ? { ...k, expiresAt: '2999-01-01T00:00:00Z' } : k));
    const tmp = path.join(dir, '.keys.json.tmp');
    fs.writeFileSync(tmp, JSON.stringify({ keys: renewed }));
    fs.renameSync(tmp, file);
    await expect.poll(async () => (await org(svc, EXPIRED_KEY)).status, { timeout: 15_000, interval: 100 }).toBe(200);
    expect((await org(svc, PLAIN_KEY)).status).toBe(200);
    expect((await org(svc, NEW_KEY)).status).toBe(401);

    // 3. A broken file (half-written, wrong shape) is logged and ignored: the previous keys stay.
    // A save is seen by the watcher as several events (truncate, write), so the test waits for each file's own error.
    const invalid = (detail: string) => svc.logs.some((l) => l.includes('access keys file invalid') && l.includes(detail));
    fs.writeFileSync(file, '{"keys": [ {"key": "x", ');
    await expect.poll(() => invalid('not valid JSON'), { timeout: 15_000, interval: 100 }).toBe(true);
    fs.writeFileSync(file, JSON.stringify({ keys: [{ key: 'k-without-org' }] }));
    await expect.poll(() => invalid('organizationId'), { timeout: 15_000, interval: 100 }).toBe(true);
    // V8 quotes the text around a JSON fault in its message; a key there must not reach the log.
    const unquoted = `{"keys": [{"key": ${NEW_KEY}}]}`;
    fs.writeFileSync(file, unquoted);
    await expect.poll(() => invalid(`"bytes":${Buffer.byteLength(unquoted)},`), { timeout: 15_000, interval: 100 }).toBe(true);
    expect(svc.logs.some((l) => l.includes(NEW_KEY.slice(0, 6)))).toBe(false);
    expect((await org(svc, PLAIN_KEY)).status).toBe(200);
    expect((await org(svc, EXPIRED_KEY)).status).toBe(200);

    // No key reached the log.
    for (const key of [PLAIN_KEY, HASHED_KEY, EXPIRED_KEY, LATER_KEY, NEW_KEY]) expect(svc.logs.some((l) => l.includes(key))).toBe(false);
  });
});

describe('KEYS_FILE at start', () => {
  it('a missing or invalid file stops the start with a message naming KEYS_FILE', async () => {
    const dir = tempDir('ods-keys-');
    await expect(startTestService({ AUTH_KEY, KEYS_FILE: path.join(dir, 'missing.json') })).rejects.toThrow(/^KEYS_FILE: cannot read .*missing\.json \(ENOENT\)/);
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify([{ key: 'k1', organizationId: 'o' }, { key: 'k1', organizationId: 'p' }]));
    await expect(startTestService({ AUTH_KEY, KEYS_FILE: bad })).rejects.toThrow(/^KEYS_FILE: .*bad\.json: entry 1: the same key is listed twice/);
    fs.writeFileSync(bad, JSON.stringify([{ key: 'k1', organizationId: 'o', expiresAt: 'next tuesday' }]));
    await expect(startTestService({ AUTH_KEY, KEYS_FILE: bad })).rejects.toThrow(/entry 0: "expiresAt" is not a date/);
  });
});
