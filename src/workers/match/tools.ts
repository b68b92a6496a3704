// Tools at match creation (docs/match-rules.md 2.2): service defaults, shallow merge of the client's
// `toolsData`, timeout counters, watermark alias, supporter rules, the round-win-box spelling and the
// agent-select flags (2.2 step 7).

import { describeErrors, memberValidators } from '../../schemas/checks.js';
import type { ToolsMemberName } from '../../schemas/match-data.js';
import type { EngineEffect, Tools } from './types.js';

export const DEFAULT_SPONSOR_LOGO_URL = 'https://auto.valospectra.com/assets/misc/logo.webp';

/** Fresh service defaults (a new object tree per match). */
export function defaultTools(): Tools {
  return {
    seriesInfo: { needed: 1, wonLeft: 0, wonRight: 0, mapInfo: [] },
    seedingInfo: { left: '', right: '' },
    tournamentInfo: { name: '', logoUrl: '', backdropUrl: '' },
    timeoutDuration: 60,
    timeoutCounter: { max: 2, left: 2, right: 2 },
    timeoutCancellationGracePeriod: 10,
    sponsorInfo: { enabled: false, duration: 5000, sponsors: [] },
    watermarkInfo: { spectraWatermark: true, customTextEnabled: false, customText: '' },
    playercamsInfo: { enable: false, removeTricodes: false, identifier: '' },
    nameOverrides: { overrides: '[]' },
    roundWinBox: { type: 'disabled', sponsors: [] },
    agentSelectAutostart: true,
    agentSelectActive: false,
  };
}

/** Input flag of newer observer clients: the operator shows agent select with a hotkey (step 7). */
const AGENT_SELECT_HOTKEY = 'agentSelectHotkeyEnabled';
/** Tools members the service owns: a `toolsData` member of the same name is ignored (step 7). */
const SERVICE_OWNED = new Set(['agentSelectAutostart', 'agentSelectActive']);

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface BuiltTools {
  tools: Tools;
  playercamSecret: string;
  playercamEndTime: unknown;
}

/**
 * Builds `tools` from the logon's `toolsData`.
 *
 * Decisions beyond the text of 2.2:
 *  - `toolsData` is copied through JSON first, so the match never shares objects with the caller.
 *  - A known member whose inner shape does not fit the broadcast schema (e.g. a `sponsors` array of
 *    numbers, a `timeoutCounter` without `max`) is treated like a member of the wrong JSON type:
 *    ignored, the default is kept, and a `warn` effect says so. This keeps the serializer from ever
 *    coercing client data.
 *  - `__proto__` keys are skipped.
 *  - `playercamsInfo.secret` and `.endTime` are moved out of the tree (never broadcast).
 *  - `agentSelectHotkeyEnabled` is read, not copied; `agentSelectAutostart` / `agentSelectActive`
 *    sent by the client are ignored with a `warn` (the service owns them).
 */
export function buildTools(
  toolsData: unknown,
  isSupporter: boolean,
  sponsorLogoUrl: string,
  effects: EngineEffect[],
): BuiltTools {
  const tools = defaultTools();
  const defaults = tools as Record<string, unknown>;
  let playercamSecret = '';
  let playercamEndTime: unknown = undefined;

  const received: unknown = toolsData === undefined ? undefined : JSON.parse(JSON.stringify(toolsData));
  if (isObject(received)) {
    for (const key of Object.keys(received)) {
      if (key === '__proto__' || key === AGENT_SELECT_HOTKEY) continue;
      const value = received[key];
      if (SERVICE_OWNED.has(key)) {
        effects.push({ kind: 'warn', code: 'tools_member_ignored', detail: `toolsData.${key}: set by the service, not by the client` });
        continue;
      }
      if (!Object.prototype.hasOwnProperty.call(defaults, key)) {
        defaults[key] = value; // unknown members are copied as they are (null included)
        continue;
      }
      if (value === null || jsonType(value) !== jsonType(defaults[key])) continue;

      // Step 4 (watermark alias) runs on the received object before its shape is checked.
      if (key === 'watermarkInfo') applyWatermarkAlias(value as Record<string, unknown>);
      let secret: unknown;
      let endTime: unknown;
      if (key === 'playercamsInfo') {
        const cams = value as Record<string, unknown>;
        secret = cams.secret;
        endTime = cams.endTime;
        delete cams.secret;
        delete cams.endTime;
      }
      const validate = memberValidators.get(key as ToolsMemberName)!;
      if (!validate(value)) {
        effects.push({
          kind: 'warn',
          code: 'tools_member_ignored',
          detail: `toolsData.${key}: ${describeErrors(validate.errors, key)}`,
        });
        continue;
      }
      if (key === 'playercamsInfo') {
        playercamSecret = typeof secret === 'string' ? secret : '';
        playercamEndTime = endTime;
      }
      defaults[key] = value;
    }
  }

  // Step 3
  const counter = tools.timeoutCounter;
  counter.left = counter.max;
  counter.right = counter.max;

  // Step 5: supporter rules
  const sponsorInfo = tools.sponsorInfo;
  if (sponsorInfo.enabled === true && !isSupporter) sponsorInfo.sponsors.push(sponsorLogoUrl);
  const watermark = tools.watermarkInfo;
  watermark.spectraWatermark = watermark.spectraWatermark === true || !isSupporter;
  watermark.customTextEnabled = watermark.customTextEnabled === true && isSupporter;
  const box = tools.roundWinBox;
  if (box.type === 'sponsors' && box.sponsors.length > 1 && !isSupporter) {
    const first = box.sponsors[0];
    first.roundCeremony = ['all'];
    first.wonTeam = 'all';
    box.sponsors.length = 1;
  }

  // Step 6: both spellings of the ceremony list
  for (const sponsor of box.sponsors) {
    const list = Array.isArray(sponsor.roundCeremony)
      ? sponsor.roundCeremony
      : Array.isArray(sponsor.roundCeremonie)
        ? sponsor.roundCeremonie
        : ['all'];
    sponsor.roundCeremony = list;
    sponsor.roundCeremonie = list;
  }

  // Step 7: agent select on a hotkey (absent or not a boolean = false: agent select starts by itself)
  const hotkey = isObject(received) ? received[AGENT_SELECT_HOTKEY] : undefined;
  if (hotkey !== undefined && typeof hotkey !== 'boolean') {
    effects.push({ kind: 'warn', code: 'tools_member_ignored', detail: `toolsData.${AGENT_SELECT_HOTKEY}: must be a boolean` });
  }
  tools.agentSelectAutostart = hotkey !== true;
  tools.agentSelectActive = false;

  return { tools, playercamSecret, playercamEndTime };
}

/** Required behaviour j: `serviceWatermark` is an input alias of `spectraWatermark`, never sent. */
function applyWatermarkAlias(watermark: Record<string, unknown>): void {
  if (typeof watermark.serviceWatermark === 'boolean' && !('spectraWatermark' in watermark)) {
    watermark.spectraWatermark = watermark.serviceWatermark;
  }
  delete watermark.serviceWatermark;
}
