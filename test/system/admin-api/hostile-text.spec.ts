// Text with a NUL byte (which PostgreSQL's text columns cannot hold) or control characters, in
// every field of the admin API that reaches the database: refused with 400 naming the field, and
// nothing written, on both adapters.
import type { AuditPage, BlockedList, PolicyView } from '@sluice/admin/api';
import { afterAll, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../support/nest-app.js';
import { closeAll } from '../../support/redis.clients.js';
import { useAdminApp } from './admin.fixture.js';
import { asBody } from './policy.bodies.js';

afterAll(closeAll);

const NUL = 'spam\u0000more';

describe.each(ADAPTERS)('hostile text in the admin API on %s', (adapter) => {
  const admin = useAdminApp(adapter);

  /** Everything a refused request could have written: the audit and the blocked list. */
  const written = async () => ({
    audit: (await admin.api<AuditPage>('GET', '/audit?limit=500')).body.entries.length,
    blocked: (await admin.api<BlockedList>('GET', '/blocked')).body.total,
  });

  const reply = async () => asBody((await admin.api<PolicyView>('GET', '/policies/reply')).body);

  type Request = [method: string, path: string, body?: unknown];
  const cases: Array<[string, string, () => Request | Promise<Request>]> = [
    [
      'reason of a block',
      'reason',
      (): Request => [
        'POST',
        '/blocked',
        { policy: 'reply', identifier: 'ann', durationMs: 60_000, reason: NUL },
      ],
    ],
    [
      'reason of a lifting',
      'reason',
      (): Request => ['DELETE', `/blocked/reply/ann?reason=${encodeURIComponent(NUL)}`],
    ],
    [
      'identifier of a counter reset',
      'identifier',
      (): Request => ['DELETE', `/counters/reply/${encodeURIComponent(NUL)}`],
    ],
    [
      'identifier of an inspection',
      'identifier',
      (): Request => ['GET', `/inspect/reply/${encodeURIComponent('a\r\nb')}`],
    ],
    [
      'actor filter of the audit',
      'actor',
      (): Request => ['GET', `/audit?actor=${encodeURIComponent(NUL)}`],
    ],
    [
      'action filter of the audit',
      'action',
      (): Request => ['GET', `/audit?action=${encodeURIComponent(NUL)}`],
    ],
    [
      'search of the blocked list',
      'q',
      (): Request => ['GET', `/blocked?q=${encodeURIComponent(NUL)}`],
    ],
    [
      'comment of a policy change',
      'comment',
      async (): Promise<Request> => [
        'PUT',
        '/policies/reply',
        { ...(await reply()), comment: NUL },
      ],
    ],
    [
      'comment of the enforcement switch',
      'comment',
      (): Request => ['PUT', '/enforcement', { enabled: false, comment: NUL }],
    ],
    [
      'comment of a policy deletion',
      'comment',
      (): Request => ['DELETE', '/policies/reply', { comment: NUL }],
    ],
    [
      'comment of a restore',
      'comment',
      (): Request => ['POST', '/policies/reply/revisions/1/restore', { comment: NUL }],
    ],
  ];

  it.each(cases)('refuses NUL in the %s with 400 naming %s', async (_, field, request) => {
    const [method, path, body] = await request();
    const before = await written();
    const answer = await admin.api<{ issues: Array<{ field: string }> }>(method, path, { body });
    expect(answer.status).toBe(400);
    expect(answer.body.issues.map((issue) => issue.field)).toContain(field);
    expect(await written()).toEqual(before);
  });
});
