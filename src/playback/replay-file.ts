// The replay format (data/README.md): JSON objects separated by `,\n`, no brackets.
// Element 0 is the header (logon fields), the rest are obs_data envelopes with their timestamp.
import fs from 'node:fs';

export interface ReplayHeader {
  clientVersion?: string;
  obsName: string;
  groupCode: string;
  leftTeam: unknown;
  rightTeam: unknown;
  toolsData?: unknown;
  logStartTime?: number;
}

export interface Replay {
  header: ReplayHeader;
  records: Record<string, unknown>[];
}

export function parseReplay(text: string): Replay {
  const all = JSON.parse('[' + text + ']') as unknown[];
  if (all.length === 0 || typeof all[0] !== 'object' || all[0] === null) throw new Error('replay has no header');
  return { header: all[0] as ReplayHeader, records: all.slice(1) as Record<string, unknown>[] };
}

export function readReplay(file: string): Replay {
  return parseReplay(fs.readFileSync(file, 'utf8'));
}
