// The admin API (README, "Operator dashboard and admin API") as an operator's script calls it:
// Bearer token over HTTP on the REST port. Services started by startTestService() have it on
// (TEST_ADMIN_TOKEN) unless the test sets ADMIN_TOKEN itself.
import type { DashboardSnapshot, MatchRow } from '../../src/main/admin/dashboard.js';
import { getOnce } from './metrics.js';

export type { DashboardSnapshot, MatchRow };

/** id `tests`: the logs name the token by it. */
export const TEST_ADMIN_TOKEN = 'tests:test-admin-token-5f0c2a9e41d7b386';

export class AdminApi {
  constructor(readonly restUrl: string, readonly token = TEST_ADMIN_TOKEN.slice(TEST_ADMIN_TOKEN.indexOf(':') + 1)) {}

  request(method: 'GET' | 'POST', path: string): Promise<Response> {
    const init = { method, headers: { authorization: `Bearer ${this.token}` } };
    return method === 'GET' ? getOnce(`${this.restUrl}${path}`, init) : fetch(`${this.restUrl}${path}`, init);
  }

  /** GET /admin/matches. */
  async snapshot(): Promise<DashboardSnapshot> {
    const res = await this.request('GET', '/admin/matches');
    if (res.status !== 200) throw new Error(`GET /admin/matches answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as DashboardSnapshot;
  }

  /** The live match's row, undefined when the service has no such live match. */
  async match(groupCode: string): Promise<MatchRow | undefined> {
    return (await this.snapshot()).matches.find((m) => m.groupCode === groupCode);
  }

  /** Whether the service has this live match (from its logon on, before any frame). */
  async has(groupCode: string): Promise<boolean> {
    return (await this.match(groupCode)) !== undefined;
  }

  /** Group codes of every live match. */
  async codes(): Promise<string[]> {
    return (await this.snapshot()).matches.map((m) => m.groupCode).sort();
  }

  /** POST /admin/matches/:groupCode/end. */
  async end(groupCode: string): Promise<{ status: number; body: unknown }> {
    const res = await this.request('POST', `/admin/matches/${encodeURIComponent(groupCode)}/end`);
    return { status: res.status, body: await res.json() };
  }

  /** POST /admin/matches/:groupCode/secret. */
  async rotateSecret(groupCode: string): Promise<{ status: number; body: { groupCode?: string; groupSecret?: string; closedSessions?: number; error?: string } }> {
    const res = await this.request('POST', `/admin/matches/${encodeURIComponent(groupCode)}/secret`);
    return { status: res.status, body: (await res.json()) as { groupSecret?: string } };
  }
}
