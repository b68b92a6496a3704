// Prints the README's settings tables (one per room's settings part, src/tools/settings-table.ts):
// `npm run docs:env`. test/repo/readme-config.test.ts checks that the README holds them as printed.
import { settingsTables } from './settings-table.js';

process.stdout.write(settingsTables());
