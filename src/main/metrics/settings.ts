// The metrics listener's settings (README, "Metrics").
import { bool, int, part, s, str } from '../base/settings-kit.js';

export const METRICS_SETTINGS = part('metrics', 'Metrics', {
  METRICS_ENABLED: s(bool, true, 'serve GET /metrics (Prometheus text format) on METRICS_HOST:METRICS_PORT'),
  METRICS_HOST: s(str, '127.0.0.1', 'bind address of the metrics listener (not public by default)'),
  METRICS_PORT: s(int(0, 65535), 5102, 'metrics port (plain HTTP); 0 = ephemeral'),
});
