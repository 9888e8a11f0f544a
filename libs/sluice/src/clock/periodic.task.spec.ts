import { afterEach, describe, expect, it, vi } from 'vitest';
import { PeriodicTask } from './periodic.task.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('PeriodicTask', () => {
  it('runs every interval once started, and not after stop', async () => {
    vi.useFakeTimers();
    let runs = 0;
    const task = new PeriodicTask(() => Promise.resolve(void runs++), 1_000);
    task.start();
    task.start();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(runs).toBe(3);
    await task.stop();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(runs).toBe(3);
  });

  it('runs one at a time: a run asked for meanwhile joins the one under way', async () => {
    let release = (): void => undefined;
    let runs = 0;
    const task = new PeriodicTask(
      () =>
        new Promise<void>((resolve) => {
          runs++;
          release = resolve;
        }),
      60_000,
    );
    const first = task.run();
    const second = task.run();
    expect(second).toBe(first);
    await Promise.resolve();
    release();
    await first;
    expect(runs).toBe(1);
    // Once it has ended, the next run is a run of its own.
    const third = task.run();
    expect(third).not.toBe(first);
    await Promise.resolve();
    release();
    await third;
    expect(runs).toBe(2);
  });

  it('waits at stop for the run under way, even one that fails', async () => {
    let release = (): void => undefined;
    const task = new PeriodicTask(
      () => new Promise<void>((_, reject) => (release = () => reject(new Error('down')))),
      60_000,
    );
    const run = task.run();
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    release();
    await expect(run).rejects.toThrow('down');
    await stopping;
    expect(stopped).toBe(true);
  });
});
