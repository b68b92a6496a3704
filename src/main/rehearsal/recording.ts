// What a rehearsal plays: the recorded match the project ships, or a replay file this service wrote
// (RECORD_REPLAYS, data/README.md "Format") that an operator uploaded. An upload is untrusted: it is
// bounded (REHEARSAL_MAX_UPLOAD_BYTES, nesting depth, record count and size), checked record by record
// and rebuilt from the fields a recorded envelope has, so nothing else of the file (an access key, a
// group secret, a player-camera secret, unknown fields) is kept or sent anywhere.
import { jsonDepthExceeds, MAX_JSON_DEPTH, valueDepthExceeds } from '../../protocol/json-depth.js';
import { roundStarts } from '../../playback/playback.js';
import { recordedMatch } from '../../playback/recorded-match.js';

/** The most records a recording may have (the recorded 19-round match has 2,763; a long overtime match some 6,000). */
export const MAX_RECORDING_RECORDS = 100_000;

export interface Team { name: string; tricode: string; url: string; attackStart?: boolean }

/** A checked recording: its header's defaults and its records, without any group code. */
export interface Recording {
  /** 'recorded' (the shipped match) or 'upload'. */
  source: 'recorded' | 'upload';
  clientVersion: string;
  leftTeam: Team;
  rightTeam: Team;
  /** The header's tool settings, without the player-camera secret. */
  toolsData?: Record<string, unknown>;
  /** Each record without its group code: observer envelopes get the rehearsal's (envelope()). */
  records: RecordingRecord[];
  times: number[];
  /** Round number → index of its first record. */
  rounds: Map<number, number>;
  /** Whether the recording ends with game_end (the match ends by itself there). */
  endsWithGameEnd: boolean;
}

export type RecordingRecord =
  | { kind: 'obs'; obsName: string; type: string; data: unknown; timestamp: number }
  | { kind: 'aux'; playerId: string; matchId: string; type: string; data: unknown; timestamp: number };

export class RecordingError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A team object as the logon carries it (name, tricode, url: strings), or undefined. */
export function teamOf(v: unknown): Team | undefined {
  if (!isObject(v)) return undefined;
  const { name, tricode, url, attackStart } = v;
  if (typeof name !== 'string' || typeof tricode !== 'string' || typeof url !== 'string') return undefined;
  if (name.length > 256 || tricode.length > 16 || url.length > 2048) return undefined;
  return { name, tricode, url, ...(typeof attackStart === 'boolean' ? { attackStart } : {}) };
}

/** Tool settings without the player-camera secret (as previews and replay headers keep them). */
export function withoutSecrets(tools: Record<string, unknown>): Record<string, unknown> {
  const out = { ...tools };
  if (isObject(out.playercamsInfo)) {
    const { secret: _secret, ...rest } = out.playercamsInfo;
    out.playercamsInfo = rest;
  }
  return out;
}

/** Parses and checks a replay file's text (throws RecordingError with what is wrong). */
export function parseRecording(text: string, limits: { maxBytes: number; maxPayloadBytes: number }, source: Recording['source'] = 'upload'): Recording {
  if (text.length > limits.maxBytes) throw new RecordingError(`the replay is larger than ${limits.maxBytes} bytes`);
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH + 1)) throw new RecordingError(`the replay nests deeper than ${MAX_JSON_DEPTH} levels`);
  let all: unknown;
  try {
    all = JSON.parse('[' + text + ']');
  } catch (err) {
    throw new RecordingError(`the replay is not in the replay format (JSON objects separated by ",\\n"): ${(err as Error).message}`);
  }
  if (!Array.isArray(all) || all.length < 2) throw new RecordingError('the replay needs a header and at least one record');
  if (all.length - 1 > MAX_RECORDING_RECORDS) throw new RecordingError(`the replay has more than ${MAX_RECORDING_RECORDS} records`);
  const header = all[0];
  if (!isObject(header)) throw new RecordingError('the replay\'s first element (its header) must be an object');
  const leftTeam = teamOf(header.leftTeam);
  const rightTeam = teamOf(header.rightTeam);
  if (!leftTeam || !rightTeam) throw new RecordingError('the replay\'s header needs leftTeam and rightTeam, each with name, tricode and url strings');
  if (header.toolsData !== undefined && !isObject(header.toolsData)) throw new RecordingError('the replay\'s header toolsData must be an object');
  const records: RecordingRecord[] = [];
  for (let i = 1; i < all.length; i++) records.push(checkRecord(all[i], i, limits.maxPayloadBytes));
  const last = records[records.length - 1];
  return {
    source,
    clientVersion: typeof header.clientVersion === 'string' && header.clientVersion.length <= 32 ? header.clientVersion : '0.3.3',
    leftTeam,
    rightTeam,
    ...(isObject(header.toolsData) ? { toolsData: withoutSecrets(header.toolsData) } : {}),
    records,
    times: records.map((r) => r.timestamp),
    rounds: roundStarts(records),
    endsWithGameEnd: last.type === 'round_info' && isObject(last.data) && last.data.roundPhase === 'game_end',
  };
}

function checkRecord(value: unknown, i: number, maxPayloadBytes: number): RecordingRecord {
  const where = `record ${i}`;
  if (!isObject(value)) throw new RecordingError(`${where} is not an object`);
  const { type, data, timestamp } = value;
  if (typeof type !== 'string' || type.length === 0 || type.length > 64) throw new RecordingError(`${where} has no message type`);
  if (typeof timestamp !== 'number' || !Number.isFinite(timestamp) || timestamp <= 0) throw new RecordingError(`${where} has no timestamp`);
  if (valueDepthExceeds(data)) throw new RecordingError(`${where} nests too deep`);
  let record: RecordingRecord;
  if (typeof value.playerId === 'string' && typeof value.matchId === 'string' && value.groupCode === undefined) {
    record = { kind: 'aux', playerId: value.playerId, matchId: value.matchId, type, data, timestamp };
  } else {
    record = { kind: 'obs', obsName: typeof value.obsName === 'string' ? value.obsName.slice(0, 128) : 'Observer', type, data, timestamp };
  }
  if (JSON.stringify(record).length > maxPayloadBytes) throw new RecordingError(`${where} is larger than MAX_PAYLOAD_BYTES (${maxPayloadBytes})`);
  return record;
}

/** The obs_data JSON text of a record for the rehearsal's group code (what an observer client would send). */
export function envelope(record: RecordingRecord, groupCode: string): string {
  if (record.kind === 'aux') return JSON.stringify({ playerId: record.playerId, matchId: record.matchId, type: record.type, data: record.data, timestamp: record.timestamp });
  return JSON.stringify({ obsName: record.obsName, groupCode, type: record.type, data: record.data, timestamp: record.timestamp });
}

let recorded: Recording | undefined;

/** The recorded match the project ships, checked like an upload, parsed once per process. */
export function recordedRecording(maxPayloadBytes: number): Recording {
  if (!recorded) {
    const replay = recordedMatch();
    const text = [replay.header, ...replay.records].map((r) => JSON.stringify(r)).join(',\n');
    recorded = parseRecording(text, { maxBytes: Number.MAX_SAFE_INTEGER, maxPayloadBytes }, 'recorded');
  }
  return recorded;
}
