// The key validity chain (docs/interface.md 5.2, plus KEYS_FILE), used by the observer logon and PUT
// /createPreview, and the organisation lookup behind GET /getOrgForKey. Keys never reach the log.
import type { Config } from '../base/config.js';
import type { Logger } from '../base/log.js';
import { digestEquals, sha256 } from '../base/hashing.js';
import { MAX_KEY_LENGTH } from '../base/limits.js';
import { pathSegment, type Outbound } from './http.js';
import type { FileKeyLookup } from './keys-file.js';
import { checkSupporter } from './supporter.js';

export type ValidityReason = 'VALID' | 'INVALID' | 'EXPIRED' | 'UNKNOWN';

export interface KeyValidity {
  valid: boolean;
  reason: ValidityReason;
  /** The reason as the clients show it: '' | 'Invalid Key' | 'Expired Key' | 'Unknown Error'. */
  message: string;
  organizationId?: string;
  organizationName?: string;
  isSupporter?: boolean;
}

export interface KeyValidator {
  /** The whole chain: REQUIRE_AUTH_KEY=false, then the local key, then KEYS_FILE, then the backend. */
  validate(key: unknown): Promise<KeyValidity>;
  /**
   * The chain's answer when it needs no backend call (every step but the last), in the same turn;
   * undefined when only the backend can answer (then `validate`).
   */
  validateLocally(key: unknown): KeyValidity | undefined;
  /** The backend alone (no local shortcuts). */
  backendLookup(key: string): Promise<KeyValidity>;
  /** For GET /getOrgForKey: KEYS_FILE, then the backend; no AUTH_KEY / REQUIRE_AUTH_KEY shortcuts (docs/interface.md 4.4). */
  orgLookup(key: string): Promise<KeyValidity>;
}

export const REASON_MESSAGES: Record<ValidityReason, string> = {
  VALID: '',
  INVALID: 'Invalid Key',
  EXPIRED: 'Expired Key',
  UNKNOWN: 'Unknown Error',
};


const result = (reason: ValidityReason, org?: { id: string; name: string; isSupporter: boolean }): KeyValidity => {
  const out: KeyValidity = { valid: reason === 'VALID', reason, message: REASON_MESSAGES[reason] };
  if (org) {
    out.organizationId = org.id;
    out.organizationName = org.name;
    out.isSupporter = org.isSupporter;
  }
  return out;
};

export interface KeyValidatorDeps {
  config: Pick<Config, 'REQUIRE_AUTH_KEY' | 'USE_BACKEND' | 'BACKEND_URL' | 'BACKEND_TOKEN' | 'SUPPORTER_CHECK_URL' | 'OUTBOUND_TIMEOUT_MS'>;
  log: Logger;
  /** The effective local access key; '' = none (then no key matches locally). */
  authKey: string;
  /** KEYS_FILE, when configured. */
  keysFile?: { lookup(key: string): FileKeyLookup };
  request: Outbound;
}

export function createKeyValidator(deps: KeyValidatorDeps): KeyValidator {
  const { config } = deps;
  const log = deps.log.child({ module: 'key-validation' });
  const localDigest = deps.authKey ? sha256(deps.authKey) : undefined;

  /** Constant-time comparison (over digests, so the lengths do not leak either). */
  const matchesLocalKey = (key: string): boolean =>
    localDigest !== undefined && key.length > 0 && digestEquals(sha256(key), localDigest);

  async function backendLookup(key: string): Promise<KeyValidity> {
    if (!config.USE_BACKEND || !config.BACKEND_URL) return result('INVALID');
    const segment = typeof key === 'string' && key.length <= MAX_KEY_LENGTH ? pathSegment(key) : undefined;
    if (segment === undefined) return result('INVALID');
    let status: number;
    let body: unknown;
    try {
      ({ status, body } = await deps.request(`${config.BACKEND_URL}/system/validateAccessKey/${segment}`, {
        headers: { 'X-User-Token': config.BACKEND_TOKEN, 'Content-Type': 'application/json' },
        timeoutMs: config.OUTBOUND_TIMEOUT_MS,
        label: 'key_validation',
      }));
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'access key check failed: no answer from the backend');
      return result('UNKNOWN');
    }
    if (status === 401) {
      log.info('access key check: invalid key');
      return result('INVALID');
    }
    if (status === 403) {
      log.info('access key check: expired key');
      return result('EXPIRED');
    }
    if (status !== 200) {
      log.error({ status }, 'access key check: unexpected backend status');
      return result('UNKNOWN');
    }
    const org = body as { id?: unknown; name?: unknown } | undefined;
    const id = typeof org?.id === 'string' || typeof org?.id === 'number' ? String(org.id) : '';
    if (!id) {
      log.error('access key check: backend answered 200 without an organization id');
      return result('UNKNOWN');
    }
    const name = typeof org?.name === 'string' ? org.name : '';
    const isSupporter = await checkSupporter(config, log, id, deps.request);
    log.info({ organizationId: id, organizationName: name, isSupporter }, 'access key verified by the backend');
    return result('VALID', { id, name, isSupporter });
  }

  /** A KEYS_FILE entry: valid with its organisation, or expired; undefined when the file does not list the key. */
  function fileLookup(key: string): KeyValidity | undefined {
    if (!deps.keysFile || key.length > MAX_KEY_LENGTH) return undefined;
    const hit = deps.keysFile.lookup(key);
    if (!hit) return undefined;
    if (hit.expired) {
      log.info({ organizationId: hit.key.organizationId }, 'access key check: expired key (keys file)');
      return result('EXPIRED');
    }
    return result('VALID', { id: hit.key.organizationId, name: hit.key.organizationName, isSupporter: hit.key.isSupporter });
  }

  function validateLocally(key: unknown): KeyValidity | undefined {
    if (!config.REQUIRE_AUTH_KEY) return result('VALID');
    if (typeof key !== 'string' || key.length === 0) return result('INVALID');
    if (matchesLocalKey(key)) return result('VALID');
    const fromFile = fileLookup(key);
    if (fromFile) return fromFile;
    if (config.USE_BACKEND) return undefined;
    return result('INVALID');
  }

  return {
    async validate(key: unknown): Promise<KeyValidity> {
      return validateLocally(key) ?? backendLookup(key as string); // undefined only for a non-empty string
    },
    validateLocally,
    backendLookup,
    async orgLookup(key: string): Promise<KeyValidity> {
      return fileLookup(key) ?? backendLookup(key);
    },
  };
}
