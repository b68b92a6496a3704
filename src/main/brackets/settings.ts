// The bracket platforms (README, "Brackets: start.gg and Challonge in the loop"; docs/brackets.md).
import { int, part, s, url } from '../base/settings-kit.js';

export const BRACKET_SETTINGS = part('brackets', 'Brackets (start.gg, Challonge)', {
  STARTGG_API_URL: s(url, 'https://api.start.gg/gql/alpha', 'start.gg\'s GraphQL endpoint the bracket links are read from and reported to'),
  CHALLONGE_API_URL: s(url, 'https://api.challonge.com/v1', 'Challonge\'s API v1 base the bracket links are read from and reported to (tournaments/{tournament}.json and below)'),
  BRACKETS_POLL_MS: s(int(500, 3_600_000), 60_000, 'how often each linked bracket is read (its sets become fixtures); an error backs off, doubling up to BRACKETS_RETRY_MAX_MS'),
  BRACKETS_RETRY_MS: s(int(50, 3_600_000), 5_000, 'a report the platform did not take is sent again after this, doubling up to BRACKETS_RETRY_MAX_MS, until it is taken (never given up)'),
  BRACKETS_RETRY_MAX_MS: s(int(50, 3_600_000), 300_000, 'the longest wait between two attempts of a report or a bracket read'),
  BRACKETS_TIMEOUT_MS: s(int(100, 120_000), 10_000, 'every request to a bracket platform is abandoned (and retried) after this'),
});
