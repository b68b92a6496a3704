import fs from 'node:fs';

/** The service's version (package.json), named in version-mismatch acks and replay headers. */
export const SERVICE_VERSION: string = (() => {
  try {
    const pkg = JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
})();
