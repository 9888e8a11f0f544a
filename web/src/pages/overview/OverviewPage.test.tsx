import type { InstanceView, StatsPoint } from '@sluice/admin/api';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { versionSummary } from '../../shared/headline';
import { InstancesTable } from './InstancesTable';
import { mergePoints, WINDOW_SECONDS } from '../../shared/live-events.hooks';
import { PolicyCharts } from '../../shared/PolicyCharts';

const instance = (
  id: string,
  policyVersion: number,
  flags: Partial<InstanceView> = {},
): InstanceView => ({
  id,
  host: 'web-1',
  pid: 100,
  libVersion: '0.1.0',
  policyVersion,
  lastError: null,
  startedAt: '2026-11-24T12:00:00.000Z',
  lastSeen: '2026-11-24T12:05:00.000Z',
  stale: false,
  upToDate: true,
  ...flags,
});

const counts = (rejected: number, blocked = 0) => ({
  allowed: 3,
  rejected,
  blocked,
  delayed: 0,
  shadowRejected: 0,
  storeError: 0,
});

afterEach(cleanup);

describe('the Overview screen', () => {
  it('counts only fresh instances on the published version, and flags the others', () => {
    const list = {
      version: 7,
      instances: [
        instance('a', 7),
        instance('b', 6, { upToDate: false }),
        instance('c', 7, { stale: true }),
      ],
    };
    render(<InstancesTable list={list} />);

    expect(versionSummary(list)).toBe('1 of 3 instances on version 7');
    expect(screen.getByTestId('instances-on-version').textContent).toBe(
      '1 of 3 instances on version 7',
    );
    expect(screen.getByText('out of date')).toBeTruthy();
    expect(screen.getByText(/^stale/)).toBeTruthy();
  });

  it("shows an instance's failed sync whole, as text that wraps rather than a badge", () => {
    const error = `policy "api-daily": Invalid policy "api-daily": ${'a long reason '.repeat(20)}`;
    render(
      <InstancesTable
        list={{ version: 7, instances: [instance('a', 6, { upToDate: false, lastError: error })] }}
      />,
    );
    expect(screen.getByText('sync failed')).toBeTruthy();
    const shown = screen.getByTestId('instance-error');
    expect(shown.textContent).toBe(error);
    expect(shown.closest('.rt-Badge')).toBeNull();
  });

  it('totals rejections and blocks of each policy over the shown seconds', () => {
    const points: StatsPoint[] = [
      { at: '2026-11-24T12:00:00.000Z', policies: { reply: counts(2, 1), like: counts(0) } },
      { at: '2026-11-24T12:00:01.000Z', policies: { reply: counts(4) } },
    ];
    render(<PolicyCharts names={['reply', 'like', 'news']} points={points} />);

    expect(screen.getByTestId('rejected-reply').textContent).toBe('7');
    expect(screen.getByTestId('rejected-like').textContent).toBe('0');
    expect(screen.getByTestId('rejected-news').textContent).toBe('0');
  });

  it('shows the decisions made without Redis (its failure mode), not only refusals', () => {
    const points: StatsPoint[] = [
      { at: '2026-11-24T12:00:00.000Z', policies: { reply: { ...counts(0), storeError: 4 } } },
      { at: '2026-11-24T12:00:01.000Z', policies: { reply: { ...counts(0), storeError: 2 } } },
    ];
    render(<PolicyCharts names={['reply']} points={points} />);
    expect(screen.getByTestId('store-error-reply').textContent).toBe('6');
  });

  it('keeps one point per second, the newest five minutes, in order', () => {
    const point = (second: number, rejected: number): StatsPoint => ({
      at: new Date(Date.UTC(2026, 10, 24, 12, 0, second)).toISOString(),
      policies: { reply: counts(rejected) },
    });
    const history = Array.from({ length: WINDOW_SECONDS }, (_, second) => point(second, 0));

    const merged = mergePoints(history, [point(WINDOW_SECONDS, 1), point(WINDOW_SECONDS - 1, 5)]);

    expect(merged).toHaveLength(WINDOW_SECONDS);
    expect(merged[0]?.at).toBe(point(1, 0).at);
    expect(merged.at(-1)?.policies.reply?.rejected).toBe(1);
    expect(merged.at(-2)?.policies.reply?.rejected).toBe(5);
  });
});
