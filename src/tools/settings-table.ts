// The README's settings tables, one per room's settings part (src/main/<room>/settings.ts), in the
// order src/main/base/config.ts assembles them: printed by env-table.ts (`npm run docs:env`), and checked
// against the README by test/repo/readme-config.test.ts.
import { SETTINGS_PARTS } from '../main/base/config.js';

/** Defaults that depend on the machine or the environment, shown as the rule rather than this host's value. */
const shown: Partial<Record<string, string>> = {
  SHARD_WORKERS: 'cores − 1 (1–4)',
  LOG_FORMAT: 'json',
  SHARD_BATCH_MS: '`2` (`0` with `SHARD_WORKERS=0`)',
};

function row(name: string, setting: { def: unknown; doc: string }): string {
  const unset = setting.def === '' || (Array.isArray(setting.def) && setting.def.length === 0);
  const def = shown[name] ?? (unset ? '(unset)' : `\`${String(setting.def)}\``);
  return `| \`${name}\` | ${def.startsWith('`') || def === '(unset)' ? def : `\`${def}\``} | ${setting.doc.replace(/\|/g, '\\|')} |`;
}

/** One bold line per part (its title and its file), then its table. */
export function settingsTables(): string {
  return SETTINGS_PARTS.map((part) => [
    `**${part.title}** (\`src/main/${part.room}/settings.ts\`)`,
    '',
    '| variable | default | meaning |',
    '|---|---|---|',
    ...Object.entries(part.settings).map(([name, setting]) => row(name, setting)),
  ].join('\n')).join('\n\n') + '\n';
}
