import type { DecisionCounts, StatsPoint } from '@sluice/admin/api';
import { describe, expect, it } from 'vitest';
import { headlineFigures, LIVE_RATE_SECONDS } from './headline';
import { rateText } from './Headline';

const counts = (partial: Partial<DecisionCounts>): DecisionCounts => ({
  allowed: 0,
  rejected: 0,
  blocked: 0,
  delayed: 0,
  shadowRejected: 0,
  storeError: 0,
  ...partial,
});

const point = (index: number, policies: StatsPoint['policies']): StatsPoint => ({
  at: new Date(Date.UTC(2026, 10, 26, 12, 0, index)).toISOString(),
  policies,
});

describe('the headline figures', () => {
  it("over every policy, counts each decision once: not again under a tier's or a candidate's series", () => {
    const points = [
      point(0, {
        api: counts({ allowed: 8, rejected: 2 }),
        'api~t:free': counts({ allowed: 3, rejected: 2 }),
        'api~t:pro': counts({ allowed: 5 }),
        'api~c': counts({ allowed: 10 }),
      }),
    ];
    expect(headlineFigures(points, 'second', false)).toMatchObject({
      perSecond: 10,
      refusedShare: 0.2,
    });
    expect(headlineFigures(points, 'second', false, 'api~t:free').perSecond).toBe(5);
  });

  it('live, averages the newest seconds only: a burst a minute ago is not "now"', () => {
    const quiet = Array.from({ length: LIVE_RATE_SECONDS }, (_, index) =>
      point(60 + index, { reply: counts({ allowed: 3, rejected: 1 }) }),
    );
    const points = [point(0, { reply: counts({ allowed: 5000 }) }), ...quiet];
    const figures = headlineFigures(points, 'second', true);
    expect(figures.perSecond).toBe(4);
    expect(figures.refusedShare).toBe(0.25);
    expect(figures.delayedShare).toBe(0);
  });

  it('over a stored range, counts every point at its resolution and each policy or one', () => {
    const points = [
      point(0, {
        reply: counts({ allowed: 90, rejected: 20, blocked: 10 }),
        like: counts({ allowed: 50, delayed: 10 }),
      }),
      point(1, { reply: counts({ allowed: 120 }) }),
    ];
    const all = headlineFigures(points, 'minute', false);
    expect(all.perSecond).toBe(300 / 120);
    expect(all.refusedShare).toBe(30 / 300);
    expect(all.delayedShare).toBe(10 / 300);
    const reply = headlineFigures(points, 'minute', false, 'reply');
    expect(reply.perSecond).toBe(240 / 120);
    expect(reply.refusedShare).toBe(30 / 240);
    expect(reply.delayedShare).toBe(0);
  });

  it('says there is nothing to share out rather than 0 % when nothing was decided', () => {
    const figures = headlineFigures([point(0, {})], 'hour', false, 'reply');
    expect(figures).toEqual({ perSecond: 0, refusedShare: null, delayedShare: null });
    expect(headlineFigures([], 'second', true).perSecond).toBe(0);
  });

  it("writes a rate in its range's unit, whatever the rate: a quiet week is per hour", () => {
    expect(rateText(250, 'second')).toEqual({ value: '250', unit: 'second' });
    // Crossing one a second within an hour's range keeps the unit.
    expect(rateText(2.5, 'minute')).toEqual({ value: '150', unit: 'minute' });
    expect(rateText(0.05, 'minute')).toEqual({ value: '3.0', unit: 'minute' });
    expect(rateText(12 / (7 * 86_400), 'hour')).toEqual({ value: '0.1', unit: 'hour' });
    expect(rateText(0, 'second')).toEqual({ value: '0.0', unit: 'second' });
  });
});
