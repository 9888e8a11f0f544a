import { readFileSync } from 'node:fs';

/** USER_HZ on Linux: /proc counts CPU time in these ticks. */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat; NaN if unknown. */
export function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** Busy CPU seconds of the whole machine so far, from /proc/stat; NaN if unknown. */
export function machineBusySeconds(): number {
  try {
    const first = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const [, user, nice, system, , , irq, softirq, steal] = first.trim().split(/\s+/).map(Number);
    const ticks = [user, nice, system, irq, softirq, steal].reduce(
      (sum: number, value) => sum + (value ?? NaN),
      0,
    );
    return ticks / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/**
 * Watches what the machine spends beside the processes named: what other work (other users of a
 * shared machine) took from the run, in cores.
 */
export class OtherLoad {
  private readonly start = performance.now();
  private readonly busy = machineBusySeconds();
  private readonly own: number;

  constructor(private readonly pids: readonly number[]) {
    this.own = this.ownSeconds();
  }

  /** Cores the rest of the machine used since this was made. */
  cores(): number {
    const seconds = (performance.now() - this.start) / 1000;
    const others = machineBusySeconds() - this.busy - (this.ownSeconds() - this.own);
    return Math.max(0, others) / seconds;
  }

  private ownSeconds(): number {
    const self = process.cpuUsage();
    return (
      this.pids.reduce((sum, pid) => sum + processCpuSeconds(pid), 0) +
      (self.user + self.system) / 1e6
    );
  }
}
