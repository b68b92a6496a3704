// Supporter check: GET {SUPPORTER_CHECK_URL}/{orgId} → { isSupporter }. Any failure means false.
// It is a separate service: the backend token is not sent there.
import type { Config } from '../base/config.js';
import type { Logger } from '../base/log.js';
import { pathSegment, type Outbound } from './http.js';

export async function checkSupporter(
  config: Pick<Config, 'SUPPORTER_CHECK_URL' | 'OUTBOUND_TIMEOUT_MS'>,
  log: Logger,
  organizationId: string,
  requestJson: Outbound,
): Promise<boolean> {
  if (!config.SUPPORTER_CHECK_URL) return false;
  const segment = pathSegment(organizationId);
  if (segment === undefined) return false;
  try {
    const { status, body } = await requestJson(`${config.SUPPORTER_CHECK_URL}/${segment}`, { timeoutMs: config.OUTBOUND_TIMEOUT_MS, label: 'supporter_check' });
    if (status !== 200) {
      log.warn({ status, organizationId }, 'supporter check: unexpected status, treated as not a supporter');
      return false;
    }
    return (body as { isSupporter?: unknown } | undefined)?.isSupporter === true;
  } catch (err) {
    log.warn({ err: (err as Error).message, organizationId }, 'supporter check failed, treated as not a supporter');
    return false;
  }
}
