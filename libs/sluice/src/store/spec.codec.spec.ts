import { describe, expect, it } from 'vitest';
import { decodeReply } from './spec.codec.js';

describe('decodeReply', () => {
  it('reads the short reply of the usual admission as an admission with its defaults', () => {
    expect(decodeReply([41, 1500], 1)).toEqual({
      admitted: true,
      outcomes: [
        {
          allowed: true,
          reason: 'ok',
          remaining: 41,
          reset: 1500,
          retry: 0,
          delay: 0,
          blockedUntil: 0,
          offence: 0,
          blockStarted: false,
          granted: 0,
        },
      ],
    });
  });

  it('reads the ten integers of each policy', () => {
    const reply = [0, 0, 1, 0, 900, 900, 0, 0, 0, 0, 3];
    expect(decodeReply(reply, 1)).toEqual({
      admitted: false,
      outcomes: [
        {
          allowed: false,
          reason: 'limit',
          remaining: 0,
          reset: 900,
          retry: 900,
          delay: 0,
          blockedUntil: 0,
          offence: 0,
          blockStarted: false,
          granted: 3,
        },
      ],
    });
  });

  it('refuses a reply of any other shape, naming it', () => {
    expect(() => decodeReply([41, 1500], 2)).toThrow('unexpected reply from Redis: [41,1500]');
    expect(() => decodeReply([41, 'x'], 1)).toThrow('unexpected reply from Redis');
    expect(() => decodeReply('OK', 1)).toThrow('unexpected reply from Redis');
  });
});
