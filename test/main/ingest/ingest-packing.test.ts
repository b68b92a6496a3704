// Observer payloads travel to their shard packed in one string with control-character
// separators. A payload (or a group code) carrying those characters must not be able to smuggle
// a record into another group's match.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAll, overlay, observer as observerClient } from '../../helpers/clients.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { echoed } from '../../helpers/waits.js';

let svc: TestService;
beforeAll(async () => { svc = await startTestService({ AUTH_KEY: 'k' }); });
afterAll(async () => { closeAll(); await svc?.close(); });

const team = (name: string, attackStart: boolean) => ({ name, tricode: name.slice(0, 3).toUpperCase(), url: 'https://example.com/x.png', attackStart });

async function observer(groupCode: string) {
  const { socket, ack } = await observerClient(svc.ingest, { obsName: 'O', key: 'k', groupCode, leftTeam: team('Alpha', true), rightTeam: team('Bravo', false) });
  expect(ack.value).toBe(true);
  return socket;
}

describe('packed forwarding', () => {
  it('a payload with record separators is refused and cannot write into another match', async () => {
    const victim = await observer('VICTM1');
    const attacker = await observer('ATTCK1');
    const fe = await overlay(svc.broadcast, 'VICTM1');
    victim.emit('obs_data', JSON.stringify({ obsName: 'O', groupCode: 'VICTM1', type: 'map', data: 'Port' }));
    await fe.waitFor((f) => f.map === 'Icebox');
    const smuggled = JSON.stringify({ obsName: 'O', groupCode: 'ATTCK1', type: 'map', data: 'Port' })
      + '\x1eVICTM1\x1f0\x1f' + JSON.stringify({ obsName: 'O', groupCode: 'VICTM1', type: 'map', data: 'Ascent' });
    // Two payloads in one batch window: were the first forwarded as is, the packed batch would
    // hold three records and the middle one would be the victim's.
    attacker.emit('obs_data', smuggled);
    attacker.emit('obs_data', JSON.stringify({ obsName: 'O', groupCode: 'ATTCK1', type: 'map', data: 'Bind' }));
    // A later, clean change to the victim proves the smuggled record was never applied before it.
    victim.emit('obs_data', JSON.stringify({ obsName: 'O', groupCode: 'VICTM1', type: 'game_mode', data: 'swift' }));
    await fe.waitFor((f) => f.matchType === 'swift');
    expect(fe.frames.some((f) => f.map === 'Ascent')).toBe(false);
    expect(svc.logs.some((l) => l.includes('"reason":"invalid_payload"'))).toBe(true);
  });

  it('a group code with a separator in it cannot address another match either', async () => {
    const fe = await overlay(svc.broadcast, 'VICTM2');
    const victim = await observer('VICTM2');
    const attacker = await observer('X\x1eVICTM2\x1f0\x1f');
    attacker.emit('obs_data', JSON.stringify({ obsName: 'O', groupCode: 'X\x1eVICTM2\x1f0\x1f', type: 'map', data: 'Ascent' }));
    // The attacker's message was routed once its echo is back; a later, clean change to the victim
    // then goes the same way to the victim's shard, after anything that reached it.
    await echoed(attacker);
    victim.emit('obs_data', JSON.stringify({ obsName: 'O', groupCode: 'VICTM2', type: 'game_mode', data: 'swift' }));
    await fe.waitFor((f) => f.matchType === 'swift');
    expect(fe.frames.every((f) => f.map !== 'Ascent')).toBe(true);
  });
});
