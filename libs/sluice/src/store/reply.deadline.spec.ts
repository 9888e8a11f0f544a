import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StoreTimeoutError, withinDeadline } from './reply.deadline.js';

/** A reply the test answers by hand. */
function pendingReply<T>() {
  let answer!: (value: T) => void;
  const reply = new Promise<T>((resolve) => (answer = resolve));
  return { reply, answer };
}

describe('withinDeadline', () => {
  beforeEach(() => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'],
    });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('settles with a reply that comes in time, and fails one that does not, naming the timeout', async () => {
    const early = pendingReply<string>();
    const late = pendingReply<string>();
    const inTime = withinDeadline(early.reply, 50);
    const tooLate = withinDeadline(late.reply, 50);
    const lateResult = tooLate.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(20);
    early.answer('ok');
    await expect(inTime).resolves.toBe('ok');
    await vi.advanceTimersByTimeAsync(31);
    const error = await lateResult;
    expect(error).toBeInstanceOf(StoreTimeoutError);
    expect((error as StoreTimeoutError).timeoutMs).toBe(50);
    expect((error as Error).message).toBe('Redis did not answer within 50 ms');
    late.answer('too late');
  });

  it('keeps one timer for all the replies awaited under one timeout, not one per send', async () => {
    const before = vi.getTimerCount();
    const replies = Array.from({ length: 100 }, () => pendingReply<number>());
    const watched = replies.map(({ reply }) => withinDeadline(reply, 200));
    expect(vi.getTimerCount() - before).toBe(1);
    replies.forEach(({ answer }, index) => answer(index));
    expect(await Promise.all(watched)).toEqual(replies.map((_, index) => index));
  });

  it('fails each reply at its own deadline: sent 10 ms apart, they fail 10 ms apart', async () => {
    const failedAt: number[] = [];
    const start = performance.now();
    for (let n = 0; n < 3; n++) {
      void withinDeadline(new Promise(() => {}), 100).catch(() =>
        failedAt.push(performance.now() - start),
      );
      await vi.advanceTimersByTimeAsync(10);
    }
    await vi.advanceTimersByTimeAsync(200);
    expect(failedAt).toHaveLength(3);
    // Each fails at its deadline, to within the timer's millisecond.
    failedAt.forEach((at, index) => {
      expect(at).toBeGreaterThanOrEqual(100 + 10 * index);
      expect(at).toBeLessThanOrEqual(100 + 10 * index + 2);
    });
  });

  it('lets a reply read before the verdict win over the timer that fired first', async () => {
    const { reply, answer } = pendingReply<string>();
    const watched = withinDeadline(reply, 30);
    // The timer fires; the verdict waits for the check phase, and the reply is read before it.
    await vi.advanceTimersToNextTimerAsync();
    answer('read first');
    await vi.runAllTimersAsync();
    await expect(watched).resolves.toBe('read first');
  });

  it('arms no timer once nothing is awaited', async () => {
    const before = vi.getTimerCount();
    const { reply, answer } = pendingReply<string>();
    const watched = withinDeadline(reply, 40);
    answer('done');
    await watched;
    await vi.advanceTimersByTimeAsync(41);
    expect(vi.getTimerCount()).toBe(before);
  });
});
