// Support packages from the store platform (Tebex): fetched once, cached SUPPORT_PACKAGES_TTL_MS
// from the first successful fetch; concurrent callers share one in-flight fetch; failures are
// not cached.
import { performance } from 'node:perf_hooks';
import type { Config } from '../base/config.js';
import type { Logger } from '../base/log.js';
import type { Outbound } from './http.js';

export type PackagesResult =
  /** The packages (with checkout URLs) as JSON text, serialized once per fetch. */
  | { ok: true; json: string }
  /** upstream: the store answered with a non-OK status; error: no usable answer (network, timeout, garbage). */
  | { ok: false; kind: 'upstream' | 'error' };

export interface SupportPackages {
  get(): Promise<PackagesResult>;
}

type StoreConfig = Pick<Config, 'TEBEX_BASE_URL' | 'TEBEX_STORE_ID' | 'TEBEX_EXTENSION_ID' | 'SUPPORT_PACKAGES_TTL_MS' | 'OUTBOUND_TIMEOUT_MS'>;

class GarbageError extends Error {}

export function createSupportPackages(config: StoreConfig, parentLog: Logger, requestJson: Outbound, now: () => number = () => performance.now()): SupportPackages {
  const log = parentLog.child({ module: 'support-packages' });
  let cache: { json: string; expiresAt: number } | undefined;
  let inFlight: Promise<PackagesResult> | undefined;

  const base = config.TEBEX_BASE_URL;
  const storeId = encodeURIComponent(config.TEBEX_STORE_ID);
  const extensionId = encodeURIComponent(config.TEBEX_EXTENSION_ID);

  function toPackages(body: unknown): object[] {
    const list = Array.isArray(body) ? body : Array.isArray((body as { data?: unknown } | undefined)?.data) ? (body as { data: unknown[] }).data : undefined;
    if (!list) throw new GarbageError('the store answered neither an array nor { data: [...] }');
    return list.map((pkg: unknown) => {
      if (typeof pkg !== 'object' || pkg === null || Array.isArray(pkg)) throw new GarbageError('a package is not an object');
      const id = (pkg as { id?: unknown }).id;
      if (typeof id !== 'string' && typeof id !== 'number') throw new GarbageError('a package has no id');
      return { ...pkg, checkoutUrl: `${base}/checkout/${storeId}/${encodeURIComponent(String(id))}?extensionId=${extensionId}` };
    });
  }

  async function fetchPackages(): Promise<PackagesResult> {
    if (!base) {
      log.error('TEBEX_BASE_URL is not set: support packages are unavailable');
      return { ok: false, kind: 'error' };
    }
    try {
      const { status, body } = await requestJson(`${base}/packages/${storeId}?extensionId=${extensionId}`, { timeoutMs: config.OUTBOUND_TIMEOUT_MS, label: 'store' });
      if (status < 200 || status > 299) {
        log.error({ status }, 'failed to fetch support packages');
        return { ok: false, kind: 'upstream' };
      }
      const packages = toPackages(body);
      const json = JSON.stringify(packages);
      cache = { json, expiresAt: now() + config.SUPPORT_PACKAGES_TTL_MS };
      log.info({ count: packages.length }, 'fetched support packages');
      return { ok: true, json };
    } catch (err) {
      log.error({ err: (err as Error).message }, 'error while fetching support packages');
      return { ok: false, kind: 'error' };
    }
  }

  return {
    get() {
      if (cache && now() < cache.expiresAt) return Promise.resolve({ ok: true, json: cache.json });
      cache = undefined;
      if (!inFlight) inFlight = fetchPackages().finally(() => { inFlight = undefined; });
      return inFlight;
    },
  };
}
