// pino root logger. JSON through a worker-thread transport in production (cheapest on the main
// thread, docs/stack-notes.md 7), pino-pretty in development. Modules take `log.child({ module })`.
import pino, { type Logger, type DestinationStream } from 'pino';
import type { Config } from './config.js';

export type { Logger };

/** Field names that may carry access keys or secrets: never written, whatever module logs them. */
const REDACT = [
  'key', 'authKey', 'groupSecret', 'secret', 'token', 'accessKey', 'client_secret', 'access_token',
  '*.key', '*.groupSecret', '*.secret', '*.token', '*.accessKey', '*.client_secret', '*.access_token',
  '*.playercamsInfo.secret', '*.toolsData.playercamsInfo.secret',
];

export function createLogger(config: Pick<Config, 'LOG_LEVEL' | 'LOG_FORMAT'>, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: config.LOG_LEVEL,
    base: { pid: process.pid },
    redact: { paths: REDACT, censor: '[redacted]' },
  };
  if (destination) return pino(options, destination);
  if (config.LOG_FORMAT === 'pretty') {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' } } });
  }
  return pino({ ...options, transport: { target: 'pino/file', options: { destination: 1 } } });
}
