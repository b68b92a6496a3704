// The body of POST /admin/rehearsals (README, "Rehearsals"), checked: which group code, which
// recording (the recorded match, or an uploaded replay file's text), the speed, the starting round,
// loop, the teams and the overlay tool settings, or a preview code to copy teams and tools from.
// Every problem is a clear message; nothing is claimed or started before the whole body is valid.
import { valueDepthExceeds } from '../../protocol/json-depth.js';
import type { PreviewStore } from '../previews/index.js';
import { MAX_GROUP_CODE_LENGTH } from '../base/limits.js';
import { parseRecording, recordedRecording, RecordingError, teamOf, withoutSecrets, type Recording, type Team } from './recording.js';

export const SPEEDS = [1, 2, 5, 10] as const;
export type Speed = (typeof SPEEDS)[number];

export interface RehearsalSpec {
  groupCode: string;
  recording: Recording;
  speed: Speed;
  /** 0: from the start of the recording (the lobby and agent select); n: from round n's first record. */
  startRound: number;
  loop: boolean;
  leftTeam: Team;
  rightTeam: Team;
  toolsData?: Record<string, unknown>;
  /** The admin token that started it (its id, never the token). */
  tokenId: string;
}

export class RequestError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A group code as the observer logon takes it: 1 to 64 characters, no control characters. */
export function validGroupCode(v: unknown): v is string {
  // eslint-disable-next-line no-control-regex
  return typeof v === 'string' && v.length > 0 && v.length <= MAX_GROUP_CODE_LENGTH && !/[\u0000-\u001f\u007f]/.test(v);
}

export interface SpecLimits { maxUploadBytes: number; maxPayloadBytes: number }

export async function parseSpec(body: Buffer, tokenId: string, previews: PreviewStore, limits: SpecLimits): Promise<RehearsalSpec> {
  let req: unknown;
  try {
    req = JSON.parse(body.toString('utf8'));
  } catch {
    throw new RequestError(400, 'The body must be a JSON object (README, "Rehearsals")');
  }
  if (!isObject(req)) throw new RequestError(400, 'The body must be a JSON object (README, "Rehearsals")');
  if (!validGroupCode(req.groupCode)) throw new RequestError(400, `groupCode must be a string of 1 to ${MAX_GROUP_CODE_LENGTH} characters`);
  const speed = req.speed ?? 1;
  if (!SPEEDS.includes(speed as Speed)) throw new RequestError(400, `speed must be one of ${SPEEDS.join(', ')}`);
  if (req.loop !== undefined && typeof req.loop !== 'boolean') throw new RequestError(400, 'loop must be true or false');

  let recording: Recording;
  const source = req.recording ?? 'recorded';
  if (source === 'recorded') {
    recording = recordedRecording(limits.maxPayloadBytes);
  } else if (source === 'upload') {
    if (typeof req.replay !== 'string') throw new RequestError(400, 'recording "upload" needs replay: the replay file\'s text');
    if (req.replay.length > limits.maxUploadBytes) throw new RequestError(413, `The replay is larger than REHEARSAL_MAX_UPLOAD_BYTES (${limits.maxUploadBytes} bytes)`);
    try {
      recording = parseRecording(req.replay, { maxBytes: limits.maxUploadBytes, maxPayloadBytes: limits.maxPayloadBytes });
    } catch (err) {
      if (err instanceof RecordingError) throw new RequestError(400, `Invalid replay: ${err.message}`);
      throw err;
    }
  } else {
    throw new RequestError(400, 'recording must be "recorded" (the recorded match) or "upload" (with replay)');
  }

  const startRound = req.startRound ?? 0;
  if (typeof startRound !== 'number' || !Number.isInteger(startRound) || startRound < 0 || (startRound > 0 && !recording.rounds.has(startRound))) {
    throw new RequestError(400, `startRound must be 0 (the start) or a round of the recording (1 to ${Math.max(0, ...recording.rounds.keys())})`);
  }

  // Teams and tools: the body's, else the preview's (fromPreview), else the recording's.
  let preview: Record<string, unknown> = {};
  if (req.fromPreview !== undefined) {
    if (typeof req.fromPreview !== 'string' || req.fromPreview.length === 0 || req.fromPreview.length > MAX_GROUP_CODE_LENGTH) throw new RequestError(400, 'fromPreview must be a preview code');
    const text = await previews.get(req.fromPreview);
    if (text === undefined) throw new RequestError(404, `Preview ${req.fromPreview} not found (previews live PREVIEW_TTL_MS)`);
    const parsed = JSON.parse(text) as unknown;
    if (isObject(parsed)) preview = parsed;
  }
  const team = (side: 'leftTeam' | 'rightTeam'): Team => {
    if (req[side] !== undefined) {
      const t = teamOf(req[side]);
      if (!t) throw new RequestError(400, `${side} must be an object with name, tricode and url strings`);
      return { ...t, attackStart: t.attackStart ?? recording[side].attackStart };
    }
    return teamOf(preview[side]) ?? recording[side];
  };
  const leftTeam = team('leftTeam');
  const rightTeam = team('rightTeam');
  if (req.toolsData !== undefined && !isObject(req.toolsData)) throw new RequestError(400, 'toolsData must be an object');
  const tools = isObject(req.toolsData) ? req.toolsData : isObject(preview.toolsData) ? preview.toolsData : recording.toolsData;
  // As a logon's: bounded in depth and size (the shard checks the fields themselves).
  if (tools && (valueDepthExceeds(tools) || JSON.stringify(tools).length > limits.maxPayloadBytes)) throw new RequestError(400, `toolsData must nest at most 32 levels and be at most MAX_PAYLOAD_BYTES (${limits.maxPayloadBytes})`);
  return {
    groupCode: req.groupCode, recording, speed: speed as Speed, startRound, loop: req.loop === true, leftTeam, rightTeam, tokenId,
    ...(tools ? { toolsData: withoutSecrets(tools) } : {}),
  };
}
