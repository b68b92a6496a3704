// The next clients' features end to end (docs/match-rules.md 2.2 step 7, 4.17, 8.1): a supporter
// organisation's observer (KEYS_FILE) logs on with the agent-select hotkey enabled, replays the
// start of the recorded match and presses the hotkey; a real overlay socket sees agent select stay
// off through the roster messages, come on with the hotkey, and the economy record of round 1.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAll, overlay } from '../../helpers/clients.js';
import { recordedMatch, recordIndex, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { startTestService, tempDir, type TestService } from '../../helpers/service.js';

const KEY = 'next-features-supporter-key';
const CODE = 'NEXTF1';

type Tools = { agentSelectAutostart: boolean; agentSelectActive: boolean; agentSelectHotkeyEnabled?: unknown };
type Frame = Record<string, unknown> & { roundNumber: number; roundPhase: string; tools: Tools; teams: { moneyRecord: { round: number; start: number; spent: number }[]; players: unknown[] }[] };

describe('the next clients: agent-select hotkey and economy record', () => {
  let svc: TestService;
  beforeAll(async () => {
    const file = path.join(tempDir('ods-next-'), 'keys.json');
    fs.writeFileSync(file, JSON.stringify({ keys: [{ key: KEY, organizationId: 'org-next', organizationName: 'Next', isSupporter: true }] }));
    svc = await startTestService({ KEYS_FILE: file });
  });
  afterAll(async () => {
    closeAll();
    await svc?.close();
  });

  it('agent select waits for toggle_agent_select; moneyRecord of round 1 reaches the overlay', async () => {
    const replay = recordedMatch();
    const toolsData = { ...(replay.header.toolsData as object | undefined), agentSelectHotkeyEnabled: true };
    const fe = await overlay(svc.broadcast, CODE);
    const { socket: obs, ack } = await replayObserver(svc.ingest, replay, { key: KEY, groupCode: CODE, toolsData });
    try {
      expect(ack.value).toBe(true);
      // Lobby and agent select: every roster message, agent select stays off.
      const start = recordIndex(replay, 'match_start');
      await sendRecords(obs, replay, { pace: 'instant', groupCode: CODE, to: start });
      const lobby = (await fe.waitFor((f) => (f as Frame).teams.every((t) => t.players.length === 5))) as Frame;
      expect(lobby.tools).toMatchObject({ agentSelectAutostart: false, agentSelectActive: false });
      expect('agentSelectHotkeyEnabled' in lobby.tools).toBe(false);
      obs.emit('obs_data', JSON.stringify({ obsName: 'Observer', groupCode: CODE, type: 'toggle_agent_select', data: true }));
      await fe.waitFor((f) => (f as Frame).tools.agentSelectActive);

      // Round 1's buy phase to round 2's shopping: round 1 is frozen at 5 × 800 per team.
      const round2 = replay.records.findIndex((r) => r.type === 'round_info' && (r.data as { roundNumber: number; roundPhase: string }).roundNumber === 2 && (r.data as { roundPhase: string }).roundPhase === 'shopping');
      await sendRecords(obs, replay, { pace: 'instant', groupCode: CODE, from: start, to: round2 + 1 });
      const shopping2 = (await fe.waitFor((f) => (f as Frame).roundNumber === 2 && (f as Frame).roundPhase === 'shopping')) as Frame;
      for (const team of shopping2.teams) {
        expect(team.moneyRecord[0]).toMatchObject({ round: 1, start: 4000 });
        expect(team.moneyRecord.map((e) => e.round)).toEqual([1, 2]);
      }
      expect(shopping2.tools.agentSelectActive).toBe(true); // nothing but the hotkey turns it off
    } finally {
      obs.close();
    }
  }, 60_000);
});
