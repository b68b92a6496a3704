// The shared test workers' clean-up (test/helpers/leftovers.ts, run after each file by
// test/setup/file-leftovers.ts): a child process a file left running, and the process that child
// started, are found and killed, and named.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cpuMs, descendants, killDescendants } from '../helpers/leftovers.js';
import { pollUntil } from '../helpers/waits.js';

const alive = (pid: number) => fs.existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));

describe('a test file\'s leftovers', () => {
  it('a child left running and the process it started are killed and named', async () => {
    const child = spawn('/bin/sh', ['-c', 'sleep 300 & wait'], { stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // The shell's child is a copy of the shell until it execs sleep: wait for the sleep itself.
    const command = (pid: number) => { try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'); } catch { return ''; } };
    const sleep = await pollUntil(() => descendants(child.pid!).find((pid) => command(pid).startsWith('sleep\0')), 'the shell\'s sleep', 10_000);
    const shell = child.pid!;
    expect(alive(sleep)).toBe(true);

    const named = killDescendants();
    expect(named.some((n) => n.startsWith(`${shell} /bin/sh`))).toBe(true);
    expect(named.some((n) => n.startsWith(`${sleep} sleep 300`))).toBe(true);
    await exited;
    await pollUntil(() => !alive(sleep), 'the sleep gone', 10_000);
    expect(descendants(process.pid)).not.toContain(shell);
  });

  it('counts this process\'s CPU time', () => {
    const before = cpuMs();
    const start = process.cpuUsage();
    // Busy until Node's own count says 200 ms of CPU (wall time would say less on a loaded machine).
    while (Object.values(process.cpuUsage(start)).reduce((a, b) => a + b, 0) < 200_000) { /* busy */ }
    expect(cpuMs() - before).toBeGreaterThanOrEqual(180); // /proc counts in 1/100 s
  });
});
