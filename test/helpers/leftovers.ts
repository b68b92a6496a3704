// What a test file can leave running in its worker process, found and ended (test/setup/file-leftovers.ts
// uses it after each file of the shared project; Linux /proc).
import fs from 'node:fs';

/** The pids of a process's children, from every thread's `children` list. */
function children(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const task of tasks) {
    try {
      out.push(...fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
    } catch { /* the thread ended */ }
  }
  return out;
}

/** Every descendant of a process, children before theirs. */
export function descendants(pid: number): number[] {
  const direct = children(pid);
  return [...direct, ...direct.flatMap(descendants)];
}

/** Every descendant of this process, killed (the deepest first); each named `<pid> <command> <first argument>`. */
export function killDescendants(): string[] {
  const pids = descendants(process.pid);
  const named = pids.map((pid) => {
    try {
      return `${pid} ${fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, 2).join(' ')}`;
    } catch {
      return String(pid);
    }
  });
  for (const pid of [...pids].reverse()) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* gone already */ }
  }
  return named;
}

/** This process's CPU time so far in ms: its threads and its reaped children (utime, stime, cutime, cstime of /proc/self/stat, in 1/100 s). */
export function cpuMs(): number {
  const { own, children } = cpuSplitMs();
  return own + children;
}

/** This process's CPU time so far in ms, its own threads' apart from its reaped children's. */
export function cpuSplitMs(): { own: number; children: number } {
  // After the command's ") " the fields start at stat(5)'s 3rd: utime (14th) is at index 11.
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  const sum = (at: number[]) => at.reduce((n, i) => n + Number(fields[i]), 0) * 10;
  return { own: sum([11, 12]), children: sum([13, 14]) };
}
