import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock/clock.js';
import { ThrottledLogger } from './throttled.logger.js';

function recorder() {
  const lines: string[] = [];
  return {
    lines,
    sink: {
      warn: (message: string) => lines.push(`warn ${message}`),
      error: (message: string) => lines.push(`error ${message}`),
    },
  };
}

describe('ThrottledLogger', () => {
  it('writes the first message at once and holds back the rest of the interval', () => {
    const { lines, sink } = recorder();
    const clock = new ManualClock(1_000_000);
    const logger = new ThrottledLogger(sink, 10_000, clock.now);
    logger.warn('Redis away');
    clock.advance(9_999_000);
    logger.warn('Redis away');
    logger.error('Redis away');
    expect(lines).toEqual(['warn Redis away']);
  });

  it('says how many messages it held back when the next interval begins', () => {
    const { lines, sink } = recorder();
    const clock = new ManualClock(0);
    const logger = new ThrottledLogger(sink, 10_000, clock.now);
    logger.error('first');
    for (let i = 0; i < 3; i++) logger.error('again');
    clock.set(10_000_000);
    logger.error('later');
    clock.set(20_000_000);
    logger.warn('quiet since');
    expect(lines).toEqual([
      'error first',
      'error later (3 more like it since the last message)',
      'warn quiet since',
    ]);
  });
});
