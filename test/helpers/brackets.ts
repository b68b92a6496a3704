// The brackets tests' data and calls (README, "Brackets: start.gg in the loop"): a start.gg event
// held by the stand-in (test/helpers/startgg.ts) whose best of 3 is between two teams whose players
// are the recorded match's ten (as the example CSV's UBF301: test/helpers/fixtures.ts), and the
// admin API's bracket routes.
import { BO3 } from './fixtures.js';
import type { StandinEntrant, StandinSet } from './startgg.js';

export const WOLVES: StandinEntrant = {
  id: 501, name: BO3.wolves.name, logo: BO3.wolves.url,
  players: ['gage#senti', 'rose#lydia', 'hircose#ratwn', 'ZodiacGriller#NA1', 'Pumpkin#VGC'].map((riotId) => ({ gamerTag: riotId.split('#')[0], riotId })),
};
// One participant without a Riot ID (the event did not collect it): four of five still make the side.
export const OWLS: StandinEntrant = {
  id: 502, name: BO3.owls.name, logo: BO3.owls.url,
  players: ['HippoStalker93#maya', 'PotatoTheChinese#00000', 'Uliusjay#CRIBB', 'YancyK#NA1'].map((riotId): { gamerTag: string; riotId?: string } => ({ gamerTag: riotId.split('#')[0], riotId })).concat([{ gamerTag: 'bike' }]),
};
export const LIGHTS: StandinEntrant = { id: 511, name: 'Northern Lights', logo: 'https://cdn.example.org/teams/northern-lights.png', players: [] };
export const TIDE: StandinEntrant = { id: 512, name: 'Tidebreakers', logo: '', players: [] };
export const STORM: StandinEntrant = { id: 520, name: 'Quiet Storm', logo: 'https://cdn.example.org/teams/quiet-storm.png', players: [] };

export const bo3Set = (id: number, stream = 'autumncup_main', station = 3): StandinSet => ({ id, state: 2, round: 'Upper Bracket Final', totalGames: 3, entrants: [{ ...WOLVES }, { ...OWLS }], stream, station });

export interface BracketSetView {
  groupCode: string; linkId: string; setId: string; entrantIds: [string, string]; round: string; stream: string; station: string;
  teams: string[]; status: string; wins: [number, number]; flags: string[]; change: string;
  report: { state: string; sent: unknown; held: unknown; completed: boolean; lastError: string | null; failures: number; exchanges?: Array<{ operation: string; ok: boolean; sent: unknown; answer: string }> };
}
export interface BracketsView {
  links: Array<{ id: string; platform: string; mode: string; name: string; sync: { lastSyncAt: number | null; nextSyncAt: number | null; lastError: string | null; errors: number; sets: number } | null }>;
  sets: BracketSetView[];
}

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

export async function linkBracket(rest: string, token: string, body: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown>; text: string }> {
  const res = await fetch(`${rest}/admin/brackets`, { method: 'POST', headers: { ...auth(token), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Record<string, unknown>, text };
}

export async function brackets(rest: string, token: string): Promise<BracketsView> {
  const res = await fetch(`${rest}/admin/brackets`, { headers: auth(token) });
  if (res.status !== 200) throw new Error(`GET /admin/brackets: ${res.status}`);
  return (await res.json()) as BracketsView;
}

/** The linked match of set `setId`, once the service scheduled it. */
export async function linkedSet(rest: string, token: string, setId: number): Promise<BracketSetView | undefined> {
  return (await brackets(rest, token)).sets.find((s) => s.setId === String(setId));
}

export async function syncNow(rest: string, token: string, linkId: string): Promise<number> {
  return (await fetch(`${rest}/admin/brackets/${linkId}/sync`, { method: 'POST', headers: auth(token) })).status;
}
