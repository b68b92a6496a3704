// The process's descriptor limit (RLIMIT_NOFILE), raised at start and named in the banner: every
// connection on every port costs one, and when they run out no client can connect to any port
// (docs/reliability.md, "Connection abuse"). Node has no setrlimit API. Node itself raises the soft
// limit to the hard one when it starts on Linux; where it did not, `prlimit` (util-linux) is run on
// this process's own pid. Where neither works, the limit is only reported.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

export interface DescriptorLimit {
  /** The soft limit in force (null: unknown on this platform). */
  soft: number | null;
  hard: number | null;
  /** How the soft limit reached the hard one: already there (node raises it), by prlimit, or not. */
  raised: 'already' | 'prlimit' | 'no';
}

const parse = (v: string | undefined): number | null => (v === undefined ? null : v === 'unlimited' ? Infinity : Number.isFinite(Number(v)) ? Number(v) : null);

/** From /proc/<pid>/limits: "Max open files  <soft>  <hard>  files". */
export function readDescriptorLimit(pid: number | 'self' = 'self'): { soft: number | null; hard: number | null } {
  try {
    const line = fs.readFileSync(`/proc/${pid}/limits`, 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const [soft, hard] = line?.slice('Max open files'.length).trim().split(/\s+/) ?? [];
    return { soft: parse(soft), hard: parse(hard) };
  } catch {
    return { soft: null, hard: null };
  }
}

/** Raises the soft limit to the hard one where it is not there yet; never throws. */
export function raiseDescriptorLimit(): DescriptorLimit {
  const before = readDescriptorLimit();
  if (before.soft === null || before.hard === null) return { ...before, raised: 'no' };
  if (before.soft >= before.hard) return { ...before, raised: 'already' };
  try {
    const hard = before.hard === Infinity ? 'unlimited' : String(before.hard);
    execFileSync('prlimit', ['--pid', String(process.pid), `--nofile=${hard}:${hard}`], { stdio: 'ignore', timeout: 5000 });
  } catch {
    // no prlimit, or not allowed: report the limit as it is
  }
  const after = readDescriptorLimit();
  return { ...after, raised: after.soft !== null && after.hard !== null && after.soft >= after.hard ? 'prlimit' : 'no' };
}

/** Descriptors this process has open now (null where /proc is not there). */
export function openDescriptors(): number | null {
  try {
    return fs.readdirSync('/proc/self/fd').length;
  } catch {
    return null;
  }
}

/** The banner's line. */
export function describeLimit(l: DescriptorLimit): string {
  if (l.soft === null) return 'file descriptors: limit unknown on this platform';
  const how = l.raised === 'prlimit' ? ' (raised to the hard limit with prlimit)' : l.raised === 'no' ? ` (hard limit ${l.hard}; could not raise it: raise it with ulimit -n before starting)` : '';
  return `file descriptors: limit ${l.soft === Infinity ? 'unlimited' : l.soft}${how}`;
}
