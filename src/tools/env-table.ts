// Prints the README's configuration table from the settings table in src/main/base/config.ts:
// `npm run docs:env`. test/repo/readme-config.test.ts checks that the README lists every setting.
import { SETTINGS } from '../main/base/config.js';

const shown: Partial<Record<string, string>> = {
  SHARD_WORKERS: 'cores − 1 (1–4)',
  LOG_FORMAT: 'json',
  SHARD_BATCH_MS: '`2` (`0` with `SHARD_WORKERS=0`)',
};
const rows = Object.entries(SETTINGS).map(([name, setting]) => {
  const unset = setting.def === '' || (Array.isArray(setting.def) && setting.def.length === 0);
  const def = shown[name] ?? (unset ? '(unset)' : `\`${String(setting.def)}\``);
  return `| \`${name}\` | ${def.startsWith('`') || def === '(unset)' ? def : `\`${def}\``} | ${setting.doc.replace(/\|/g, '\\|')} |`;
});
process.stdout.write(['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n') + '\n');
