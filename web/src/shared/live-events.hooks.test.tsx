import type { StatsPoint } from '@sluice/admin/api';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answerFetch, TestEventSource } from '../testing/render-screen';
import { mergePoints, useLiveEvents, WINDOW_SECONDS } from './live-events.hooks';

const counts = (rejected: number) => ({
  allowed: 0,
  rejected,
  blocked: 0,
  delayed: 0,
  shadowRejected: 0,
  storeError: 0,
});
const point = (second: number, rejected = 0): StatsPoint => ({
  at: new Date(Date.UTC(2026, 10, 24, 12, 0, 0) + second * 1000).toISOString(),
  policies: { reply: counts(rejected) },
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the live points', () => {
  it('drop a point older than five minutes before the newest, however few came since', () => {
    expect(mergePoints([point(0, 9)], [point(WINDOW_SECONDS + 100, 1)])).toEqual([
      point(WINDOW_SECONDS + 100, 1),
    ]);
    expect(mergePoints([point(1, 9)], [point(WINDOW_SECONDS, 1)])).toHaveLength(2);
  });

  it('keep what the stream brought when a screen is left and opened again, and read afresh', async () => {
    let reads = 0;
    answerFetch({
      'GET /stats': () => {
        reads++;
        return { body: { resolution: 'second', points: [point(1, reads)] } };
      },
      'GET /instances': { body: { version: 1, instances: [] } },
    });
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const wrapper = ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={client}>{children}</QueryClientProvider>
    );
    const first = renderHook(() => useLiveEvents(), { wrapper });
    await waitFor(() => expect(first.result.current.points).toHaveLength(1));
    act(() => TestEventSource.send('stats', point(2, 7)));
    await waitFor(() => expect(first.result.current.points).toHaveLength(2));
    first.unmount(); // another screen

    const again = renderHook(() => useLiveEvents(), { wrapper });
    expect(again.result.current.points.map((each) => each.at)).toEqual([point(1).at, point(2).at]);
    await waitFor(() => expect(reads).toBe(2));
    await waitFor(() =>
      expect(again.result.current.points.map((each) => each.policies.reply?.rejected)).toEqual([
        2, 7,
      ]),
    );
  });
});
