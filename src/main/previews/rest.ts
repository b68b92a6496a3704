// PUT /createPreview and GET /preview/:previewCode (docs/interface.md 4.2, 4.3, 3.1).
import crypto from 'node:crypto';
import type { KeyValidator } from '../backend/index.js';
import { PREVIEW_CODE_ATTEMPTS, PREVIEW_CODE_LENGTH as CODE_LENGTH } from '../base/limits.js';
import type { Logger } from '../base/log.js';
import type { Awaitable } from '../base/awaitable.js';
import type { PreviewStore } from './preview-store.js';
import type { Reply, Router } from '../http/router.js';

/** Group and preview code alphabet (docs/interface.md 2.9): no I, no O. */
export const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';

export function randomCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[crypto.randomInt(CODE_ALPHABET.length)];
  return code;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

class InvalidPreview extends Error {}

const invalid = (reply: Reply, details: string) => reply.error(400, 'Invalid preview data', { details });

/**
 * The record to store: the request without its access key and without the player-cam secret,
 * with the code it is stored under and the key's organization.
 */
export function buildPreviewRecord(data: Record<string, unknown>, previewCode: string, organizationId: string): Record<string, unknown> {
  for (const team of ['leftTeam', 'rightTeam']) {
    if (!isObject(data[team])) throw new InvalidPreview(`${team} must be an object`);
  }
  if (data.toolsData !== undefined && data.toolsData !== null && !isObject(data.toolsData)) throw new InvalidPreview('toolsData must be an object');
  const { key: _key, ...record } = data;
  if (isObject(record.toolsData) && isObject(record.toolsData.playercamsInfo)) {
    const { secret: _secret, ...playercamsInfo } = record.toolsData.playercamsInfo;
    record.toolsData = { ...record.toolsData, playercamsInfo };
  }
  record.previewCode = previewCode;
  record.organizationId = organizationId;
  return record;
}

/** `f` of the value: in the same turn when the store answered at once (base/awaitable.ts). */
const then = <T, U>(value: Awaitable<T>, f: (value: T) => Awaitable<U>): Awaitable<U> => (value instanceof Promise ? value.then(f) : f(value));

interface Stored { previewCode: string; stored: 'stored' | 'full' }

export interface PreviewRouteDeps {
  store: PreviewStore;
  keys: KeyValidator;
  log: Logger;
}

export function registerPreviews(router: Router, deps: PreviewRouteDeps): void {
  const log = deps.log.child({ module: 'previews' });

  /**
   * The record under a fresh random code: created only where no preview is (a collision would
   * overwrite someone else's preview); after PREVIEW_CODE_ATTEMPTS collisions, under one more code.
   */
  function storeUnderFreshCode(record: Record<string, unknown>, attempt = 0): Awaitable<Stored> {
    const previewCode = randomCode();
    record.previewCode = previewCode;
    const json = JSON.stringify(record);
    if (attempt === PREVIEW_CODE_ATTEMPTS) return then(deps.store.put(previewCode, json), (stored) => ({ previewCode, stored }));
    return then(deps.store.create(previewCode, json), (stored) => (stored === 'exists' ? storeUnderFreshCode(record, attempt + 1) : { previewCode, stored }));
  }

  // Without a backend call or a remote store nothing is awaited: the answer is written in the
  // same turn, inside uWS's data callback.
  router.put('/createPreview', async (req, reply) => {
    // Rule 6 covers the body itself: not JSON, or not an object.
    let data: unknown;
    try {
      data = JSON.parse(req.body.toString('utf8'));
    } catch (err) {
      return invalid(reply, (err as Error).message);
    }
    if (!isObject(data)) return invalid(reply, 'The preview data must be a JSON object');

    // Rule 1.
    const key = data.key;
    if (typeof key !== 'string' || key.length === 0) return reply.error(400, 'Missing or invalid key in preview data');

    // Rule 2 (in the same turn unless the backend must answer).
    const local = deps.keys.validateLocally(key);
    const validity = local ?? await deps.keys.backendLookup(key);
    if (!validity.valid) return reply.error(403, 'Invalid or expired key');
    if (reply.clientGone) return;

    // Rules 3 and 4 (and rule 6 for the members the record needs).
    const supplied = data.previewCode;
    const chosen = typeof supplied === 'string' && supplied.length === CODE_LENGTH ? supplied : undefined;
    let record: Record<string, unknown>;
    try {
      // Under a generated code, the code is set (and the text made) per attempt.
      record = buildPreviewRecord(data, chosen ?? '', validity.organizationId ?? '');
    } catch (err) {
      return invalid(reply, err instanceof InvalidPreview ? err.message : 'The preview data cannot be stored');
    }

    // Rule 5.
    const outcome = chosen !== undefined
      ? then(deps.store.put(chosen, JSON.stringify(record)), (stored): Stored => ({ previewCode: chosen, stored }))
      : storeUnderFreshCode(record);
    const { previewCode, stored } = outcome instanceof Promise ? await outcome : outcome;
    if (stored === 'full') {
      log.warn('preview store full: creation refused');
      return reply.error(503, 'Too many previews stored, try again later');
    }
    log.info({ previewCode, organizationId: validity.organizationId }, 'preview stored');
    reply.json(200, { previewCode });
  }, { body: true });

  const badFormat = (reply: Reply) => reply.error(400, 'Invalid preview code format');
  router.get('/preview', (_req, reply) => badFormat(reply));
  router.get('/preview/', (_req, reply) => badFormat(reply));
  router.get('/preview/:previewCode', async (req, reply) => {
    let previewCode: string;
    try {
      previewCode = decodeURIComponent(req.params[0]);
    } catch {
      return badFormat(reply);
    }
    if (previewCode.length !== CODE_LENGTH) return badFormat(reply);
    const pending = deps.store.get(previewCode);
    const json = pending instanceof Promise ? await pending : pending;
    if (json === undefined) return reply.error(404, 'Preview not found');
    reply.rawJson(200, json);
  });
}
