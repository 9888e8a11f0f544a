import type { PolicyView } from '@sluice/admin/api';
import { describe, expect, it } from 'vitest';
import { NEW_POLICY, toFormValues, toReplayRule, toWriteRequest } from './policy-form';

describe('the editor and consistency', () => {
  it('sends syncMs, written as a duration, only for an eventual policy', () => {
    const eventual = toWriteRequest(
      { ...NEW_POLICY, name: 'feed', consistency: 'eventual', syncMs: '90 ms' },
      0,
    );
    expect(eventual).toMatchObject({ consistency: 'eventual', syncMs: 90 });
    const exact = toWriteRequest({ ...NEW_POLICY, name: 'feed', syncMs: '90 ms' }, 0);
    expect(exact.consistency).toBe('exact');
    expect('syncMs' in exact).toBe(false);
  });

  it('sends an unreadable interval as written, so the server names syncMs', () => {
    const request = toWriteRequest(
      { ...NEW_POLICY, name: 'feed', consistency: 'eventual', syncMs: 'soon' },
      0,
    );
    expect(request.syncMs).toBe('soon');
  });

  it('shows a policy read back with its interval as people write it', () => {
    const policy = {
      ...toWriteRequest({ ...NEW_POLICY, name: 'feed' }, 3),
      consistency: 'eventual',
      syncMs: 1_500,
    } as unknown as PolicyView;
    expect(toFormValues({ ...policy, overrides: [], penalty: null, match: null })).toMatchObject({
      consistency: 'eventual',
      syncMs: '1 s 500 ms',
    });
  });
});

describe('the editor and calendar periods', () => {
  it('sends a calendar instead of a window, and the anchor only for a month', () => {
    const monthly = toWriteRequest(
      {
        ...NEW_POLICY,
        name: 'api-tokens',
        calendarUnit: 'month',
        timeZone: ' Europe/Paris ',
        anchorDay: '15',
      },
      0,
    );
    expect(monthly.calendar).toEqual({ unit: 'month', timeZone: 'Europe/Paris', anchorDay: 15 });
    expect('periodMs' in monthly).toBe(false);
    const daily = toWriteRequest(
      { ...NEW_POLICY, name: 'api-daily', calendarUnit: 'day', anchorDay: '15' },
      0,
    );
    expect(daily.calendar).toEqual({ unit: 'day', timeZone: 'UTC', anchorDay: null });
    const windowed = toWriteRequest({ ...NEW_POLICY, name: 'burst' }, 0);
    expect([windowed.calendar, windowed.periodMs]).toEqual([null, 60_000]);
    // Another algorithm has no calendar, whatever the hidden field holds.
    const bucket = toWriteRequest(
      { ...NEW_POLICY, name: 'bucket', algorithm: 'gcra', calendarUnit: 'day' },
      0,
    );
    expect([bucket.calendar, bucket.periodMs]).toEqual([null, 60_000]);
  });

  it('reads a calendar policy back into the editor', () => {
    const policy = {
      ...toWriteRequest({ ...NEW_POLICY, name: 'api-tokens' }, 3),
      periodMs: 31 * 86_400_000 + 3_600_000,
      calendar: { unit: 'month', timeZone: 'Europe/Paris', anchorDay: 15 },
    } as unknown as PolicyView;
    expect(toFormValues({ ...policy, overrides: [], penalty: null, match: null })).toMatchObject({
      calendarUnit: 'month',
      timeZone: 'Europe/Paris',
      anchorDay: '15',
      periodMs: '',
    });
  });

  it('replays a calendar quota in its periods, not in the length the simulator uses', () => {
    const rule = toReplayRule({
      ...NEW_POLICY,
      name: 'api-tokens',
      limit: '1000',
      calendarUnit: 'month',
      timeZone: 'Europe/Paris',
      anchorDay: '15',
    });
    expect(rule).toMatchObject({
      algorithm: 'fixed-window',
      limit: 1000,
      calendar: { unit: 'month', timeZone: 'Europe/Paris', anchorDay: 15 },
    });
    expect(typeof rule !== 'string' && 'periodMs' in rule).toBe(false);
    expect(toReplayRule({ ...NEW_POLICY, name: 'burst', limit: '5' })).toMatchObject({
      periodMs: 60_000,
    });
  });
});
