// The standby observer's and the links' metrics (README, "Metrics"): failovers by cause, and how
// many matches have a silent observer during a live round (for alerting: deploy/prometheus-alerts.yml).
// Per-match values stay on the dashboard and in the admin API: labels here are bounded.
import client from 'prom-client';
import type { StandbyRelay } from './relay.js';

export function registerStandbyMetrics(registry: client.Registry, relay: StandbyRelay, silentMatches?: () => number): void {
  new client.Counter({
    name: 'ods_observer_failovers_total', help: 'Observer failovers (the standby became the primary), by cause: primary_silent, primary_closed, manual', labelNames: ['cause'], registers: [registry],
    collect() {
      this.reset();
      for (const [cause, n] of Object.entries(relay.totals)) this.inc({ cause }, n);
    },
  });
  if (silentMatches) {
    new client.Gauge({
      name: 'ods_matches_observer_silent', help: 'Live matches whose primary observer has sent nothing for OBSERVER_SILENT_MS during a live round', registers: [registry],
      collect() { this.set(silentMatches()); },
    });
  }
}
