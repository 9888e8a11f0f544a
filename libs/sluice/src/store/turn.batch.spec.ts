import { describe, expect, it } from 'vitest';
import { TurnBatch, type TurnScheduler } from './turn.batch.js';

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

/** Turns and holds run by hand: no test waits for time to pass. */
function manualTurns() {
  let turns: Array<() => void> = [];
  let holds: Array<{ at: number; run: () => void }> = [];
  let now = 0;
  const scheduler: TurnScheduler = {
    endOfTurn: (run) => void turns.push(run),
    after: (ms, run) => {
      const hold = { at: now + ms, run };
      holds.push(hold);
      return hold;
    },
    cancel: (hold) => void (holds = holds.filter((each) => each !== hold)),
  };
  return {
    scheduler,
    /** Ends the turn: what was scheduled for its end runs, and what that schedules runs next. */
    endTurn() {
      while (turns.length > 0) {
        const due = turns;
        turns = [];
        due.forEach((run) => run());
      }
    },
    /** Moves time on by `ms`, running the holds that fall due. */
    elapse(ms: number) {
      now += ms;
      const due = holds.filter((hold) => hold.at <= now);
      holds = holds.filter((hold) => hold.at > now);
      due.forEach((hold) => hold.run());
    },
  };
}

/** Lets the promise callbacks of answered sends run (microtasks only: no time passes). */
const settle = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('TurnBatch', () => {
  it('sends the calls of one turn together and answers each with its own result', async () => {
    const { sends, send, answerAll } = recorder();
    const turns = manualTurns();
    const batch = new TurnBatch(send, { maxItems: 64, maxHoldMs: 1000, ...turns });
    const results = [1, 2, -3].map((item) =>
      batch.add(item).catch((error: Error) => error.message),
    );
    expect(sends).toEqual([]);
    turns.endTurn();
    answerAll();
    expect(await Promise.all(results)).toEqual([10, 20, 'bad -3']);
    expect(sends).toEqual([[1, 2, -3]]);
  });

  it('splits a turn larger than maxItems', async () => {
    const { sends, send, answerAll } = recorder();
    const turns = manualTurns();
    const batch = new TurnBatch(send, { maxItems: 2, maxHoldMs: 0, ...turns });
    const results = Promise.all([1, 2, 3, 4, 5].map((item) => batch.add(item)));
    turns.endTurn();
    answerAll();
    expect(await results).toEqual([10, 20, 30, 40, 50]);
    expect(sends).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('holds calls made while a send is out until it comes back', async () => {
    const { sends, send, answerAll } = recorder();
    const turns = manualTurns();
    const batch = new TurnBatch(send, { maxItems: 64, maxHoldMs: 1000, ...turns });
    const first = batch.add(1);
    turns.endTurn();
    const later = [batch.add(2), batch.add(3)];
    turns.endTurn();
    turns.elapse(999);
    expect(sends).toEqual([[1]]);
    answerAll();
    expect(await first).toBe(10);
    await settle();
    turns.endTurn();
    answerAll();
    expect(await Promise.all(later)).toEqual([20, 30]);
    expect(sends).toEqual([[1], [2, 3]]);
  });

  it('sends held calls anyway once maxHoldMs has passed', async () => {
    const { sends, send, answerAll } = recorder();
    const turns = manualTurns();
    const batch = new TurnBatch(send, { maxItems: 64, maxHoldMs: 5, ...turns });
    void batch.add(1);
    turns.endTurn();
    const later = batch.add(2);
    turns.elapse(4);
    expect(sends).toEqual([[1]]);
    turns.elapse(1);
    expect(sends).toEqual([[1], [2]]);
    answerAll();
    expect(await later).toBe(20);
  });

  it('with maxHoldMs 0, sends the calls of a turn at its end although a send is out', async () => {
    const { sends, send, answerAll } = recorder();
    const turns = manualTurns();
    const batch = new TurnBatch(send, { maxItems: 64, maxHoldMs: 0, ...turns });
    const first = batch.add(1);
    turns.endTurn();
    const later = [batch.add(2), batch.add(3)];
    turns.endTurn();
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
