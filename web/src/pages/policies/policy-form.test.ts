import type { PolicyView } from '@sluice/admin/api';
import { describe, expect, it } from 'vitest';
import { NEW_POLICY, toFormValues, toWriteRequest } from './policy-form';

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
