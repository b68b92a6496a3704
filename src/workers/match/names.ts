// Name tables: the game's internal names → display names (docs/match-rules.md, valorant-names.json).
// Every lookup goes through a Map built once at load, so inherited keys such as
// "constructor" or "__proto__" can never match.

import { valorantNames } from './names-data.js';

const agentDisplay = new Map<string, string>();
for (const [codename, agent] of Object.entries(valorantNames.agents)) agentDisplay.set(codename, agent.display);

const agentAliases = new Map<string, string>(Object.entries(valorantNames.agentAliases));

const maps = new Map<string, string>(Object.entries(valorantNames.maps));
const mapInputAliases = new Map<string, string>(Object.entries(valorantNames.mapInputAliases));

const weapons = new Map<string, string>();
for (const table of [
  valorantNames.weapons.scoreboard,
  valorantNames.weapons.killfeed,
  valorantNames.weapons.abilities,
  valorantNames.weapons.placeholder,
]) {
  for (const [k, v] of Object.entries(table)) weapons.set(k, v);
}

const armor: readonly string[] = valorantNames.armor;

export const AGENT_NONE_DISPLAY: string = valorantNames.agentNone.display;
export const MAP_FALLBACK_DISPLAY: string = valorantNames.mapFallback.display;
export const WEAPON_UNKNOWN: string = valorantNames.weapons.placeholder.unknown;

/** Display names the suffix rules (section 12) identify agents by. */
export const AGENT = {
  astra: 'Astra',
  clove: 'Clove',
  cypher: 'Cypher',
  veto: 'Veto',
} as const;

/**
 * agentProper for an agentInternal (valorant-names.json agentLookupRules): the codename's display
 * name; a `<Codename>_PC_C` alias resolves to its codename's display; "" gives "No Agent selected";
 * anything else is kept unchanged.
 */
export function agentProper(internal: string): string {
  const direct = agentDisplay.get(internal);
  if (direct !== undefined) return direct;
  if (internal === '') return AGENT_NONE_DISPLAY;
  if (internal.endsWith('_PC_C')) {
    const codename = agentAliases.get(internal);
    if (codename !== undefined) return agentDisplay.get(codename) ?? internal;
  }
  return internal;
}

const TRAILING_DIGITS = /\d+$/;

/** Killfeed assist icon (e.g. `TX_Killfeed_Sova1`) → agent codename, or undefined. Digits are stripped first. */
export function assistCodename(icon: string): string | undefined {
  return agentAliases.get(icon.replace(TRAILING_DIGITS, ''));
}

/** `map` message: internal map name → display name; `Infinity` is an input alias; unknown → "Corrode". */
export function mapDisplay(internal: string): string {
  const name = mapInputAliases.get(internal) ?? internal;
  return maps.get(name) ?? MAP_FALLBACK_DISPLAY;
}

/** `armor[initialArmor]`, or undefined (omitted) outside 0–4. */
export function armorName(index: number): string | undefined {
  return Number.isInteger(index) && index >= 0 && index < armor.length ? armor[index] : undefined;
}

/** Weapon display name from the union of all weapon tables, or undefined (omitted) when unmapped. */
export function weaponDisplay(internal: string): string | undefined {
  return weapons.get(internal);
}
