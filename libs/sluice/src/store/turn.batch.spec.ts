import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { TurnBatch } from './turn.batch.js';

/** A send that records each batch and answers when told to. */
function recorder() {
  const sends: number[][] = [];
  const pending: Array<() => void> = [];
  const send = (items: number[]) => {
    sends.push(items);
    return new Promise<Array<number | Error>>((resolve) => {
      pending.push(() =>
        resolve(items.map((item) => (item < 0 ? new Error(`bad ${item}`) : item * 10))),
      );
    });
  };
  const answerAll = () => pending.splice(0).forEach((answer) => answer());
  return { sends, send, answerAll };
}

describe('TurnBatch', () => {
  it('sends the calls of one turn together and answers each with its own result', async () => {
    const { sends, send, answerAll } = recorder();
    const batch = new TurnBatch(send, { maxItems: 64, maxHoldMs: 1000 });
    const results = [1, 2, -3].map((item) =>
      batch.add(item).catch((error: Error) => error.message),
    );
    await sleep(0);
    answerAll();
    expect(await Promise.all(results)).toEqual([10, 20, 'bad -3']);
    expect(sends).toEqual([[1, 2, -3]]);
  });

  it('splits a turn larger than maxItems', async () => {
    const { sends, send, answerAll } = recorder();
    const batch = new TurnBatch(send, { maxItems: 2, maxHoldMs: 0 });
    const results = Promise.all([1, 2, 3, 4, 5].map((item) => batch.add(item)));
    for (let i = 0; i < 10 && sends.length < 3; i++) await sleep(5);
    answerAll();
    expect(await results).toEqual([10, 20, 30, 40, 50]);
    expect(sends).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('holds calls made while a send is out until it comes back', async () => {
    const { sends, send, answerAll } = recorder();
    const batch = new TurnBatch(send, { maxItems: 64, maxHoldMs: 1000 });
    const first = batch.add(1);
    await sleep(0);
    const later = [batch.add(2), batch.add(3)];
    await sleep(20);
    expect(sends).toEqual([[1]]);
    answerAll();
    expect(await first).toBe(10);
    await sleep(0);
    answerAll();
    expect(await Promise.all(later)).toEqual([20, 30]);
    expect(sends).toEqual([[1], [2, 3]]);
  });

  it('sends held calls anyway once maxHoldMs has passed', async () => {
    const { sends, send, answerAll } = recorder();
    const batch = new TurnBatch(send, { maxItems: 64, maxHoldMs: 5 });
    void batch.add(1);
    await sleep(0);
    const later = batch.add(2);
    await sleep(30);
    expect(sends).toEqual([[1], [2]]);
    answerAll();
    expect(await later).toBe(20);
  });

  it('with maxHoldMs 0, sends the calls of a turn at its end although a send is out', async () => {
    const { sends, send, answerAll } = recorder();
    const batch = new TurnBatch(send, { maxItems: 64, maxHoldMs: 0 });
    const first = batch.add(1);
    await sleep(0);
    const later = [batch.add(2), batch.add(3)];
    await new Promise((resolve) => setImmediate(resolve));
    expect(sends).toEqual([[1], [2, 3]]);
    answerAll();
    expect(await Promise.all([first, ...later])).toEqual([10, 20, 30]);
  });

  it('fails every call of a send that fails', async () => {
    const batch = new TurnBatch<number, number>(() => Promise.reject(new Error('down')), {
      maxItems: 64,
      maxHoldMs: 1,
    });
    const outcomes = await Promise.allSettled([batch.add(1), batch.add(2)]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
  });
});
