import type { ExecutionContext } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { TrackerResolver } from './tracker.resolver.js';

const context = {} as ExecutionContext;
const request = (headers: Record<string, string> = {}, user?: object) => ({
  headers,
  socket: { remoteAddress: '203.0.113.9' },
  ...(user !== undefined ? { user } : {}),
});

describe('TrackerResolver.trackNow', () => {
  const resolver = new TrackerResolver(undefined, {
    account: (req: { headers: Record<string, string> }) => req.headers['x-account'],
    later: (req: { headers: Record<string, string> }) => Promise.resolve(req.headers['x-account']),
  });

  it('answers the built-in keys at once, without a promise', () => {
    expect(resolver.trackNow(request(), 'ip', context)).toEqual({
      keyKind: 'ip',
      identifier: '203.0.113.9',
    });
    expect(resolver.trackNow(request({ 'x-team': 'blue' }), 'header:X-Team', context)).toEqual({
      keyKind: 'header:X-Team',
      identifier: 'blue',
    });
    expect(resolver.trackNow(request({}, { id: 42 }), 'user', context)).toEqual({
      keyKind: 'user',
      identifier: '42',
    });
  });

  it('counts a request without what its key names by its address, still at once', () => {
    expect(resolver.trackNow(request(), 'user', context)).toEqual({
      keyKind: 'ip',
      identifier: '203.0.113.9',
    });
    expect(resolver.trackNow(request(), 'header:x-team', context)).toEqual({
      keyKind: 'ip',
      identifier: '203.0.113.9',
    });
    expect(resolver.trackNow(request(), 'account', context)).toEqual({
      keyKind: 'ip',
      identifier: '203.0.113.9',
    });
  });

  it("answers a named tracker's own answer at once, and a promise only for its promise", async () => {
    expect(resolver.trackNow(request({ 'x-account': 'acme' }), 'account', context)).toEqual({
      keyKind: 'account',
      identifier: 'acme',
    });
    const later = resolver.trackNow(request({ 'x-account': 'acme' }), 'later', context);
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toEqual({ keyKind: 'later', identifier: 'acme' });
    expect(await resolver.trackNow(request(), 'later', context)).toEqual({
      keyKind: 'ip',
      identifier: '203.0.113.9',
    });
  });

  it('track answers as trackNow does, always as a promise', async () => {
    const tracked = resolver.track(request({ 'x-account': 'acme' }), 'account', context);
    expect(tracked).toBeInstanceOf(Promise);
    expect(await tracked).toEqual({ keyKind: 'account', identifier: 'acme' });
  });
});
