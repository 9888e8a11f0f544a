import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { createQueryClient } from './query-client';
import { SESSION_KEY } from '../shared/session.hooks';

const refusal = (status: number) =>
  new ApiError(status, { statusCode: status, error: 'Refused', message: 'no' });

describe('the panel query client', () => {
  it('signs the panel out when any read answers 401', async () => {
    const client = createQueryClient();
    client.setQueryData(SESSION_KEY, { name: 'olga', role: 'operator' });
    await client
      .fetchQuery({ queryKey: ['blocked'], queryFn: () => Promise.reject(refusal(401)) })
      .catch(() => undefined);
    expect(client.getQueryData(SESSION_KEY)).toBeNull();
  });

  it('signs the panel out when a write answers 401, not when it answers 403', async () => {
    const client = createQueryClient();
    client.setQueryData(SESSION_KEY, { name: 'olga', role: 'operator' });
    const write = (status: number) =>
      client
        .getMutationCache()
        .build(client, { mutationFn: () => Promise.reject(refusal(status)) })
        .execute(undefined)
        .catch(() => undefined);
    await write(403);
    expect(client.getQueryData(SESSION_KEY)).toEqual({ name: 'olga', role: 'operator' });
    await write(401);
    expect(client.getQueryData(SESSION_KEY)).toBeNull();
  });
});
