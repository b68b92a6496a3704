// Command-line options of the benchmarks: `--name value` and bare `--flag`.
const argv = process.argv.slice(2);

/** The value after `--name`, or `def` when it is absent (or followed by another option). */
export function opt(name: string, def: string): string {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined && !argv[i + 1].startsWith('--') ? argv[i + 1] : def;
}

/** Whether `--name` was given. */
export function flag(name: string): boolean {
  return argv.includes(`--${name}`);
}
