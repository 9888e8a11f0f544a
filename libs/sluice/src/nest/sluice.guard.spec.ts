import { Controller, Get, Injectable, UseGuards, type ExecutionContext } from '@nestjs/common';
import { afterEach, describe, expect, it } from 'vitest';
import { Throttle } from '../metadata/throttle.decorator.js';
import type { Decision } from '../engine/decision.js';
import type { Tracked } from '../trackers/tracker.resolver.js';
import { SluiceGuard } from './sluice.guard.js';
import { BothController, startMemoryApp, type MemoryApp } from '../testing/memory-app.fixture.js';

const started: MemoryApp[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((app) => app.close()));
});

async function start(...args: Parameters<typeof startMemoryApp>): Promise<MemoryApp> {
  const app = await startMemoryApp(...args);
  started.push(app);
  return app;
}

const as = (user: string) => ({ headers: { 'x-user': user } });
const LIKE = {
  name: 'like',
  algorithm: 'fixed-window',
  limit: 3,
  periodMs: 60_000,
  key: 'header:x-user',
} as const;

describe('SluiceGuard on the in-memory store', () => {
  it('admits up to the limit, then answers 429 with Retry-After, and admits again next window', async () => {
    const { url, clock } = await start([LIKE]);
    const statuses: number[] = [];
    for (let n = 0; n < 4; n++) statuses.push((await fetch(`${url}/like`, as('ann'))).status);
    expect(statuses).toEqual([200, 200, 200, 429]);

    const refused = await fetch(`${url}/like`, as('ann'));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(await refused.json()).toMatchObject({ statusCode: 429, policy: 'like' });

    clock.advance(60_000_000);
    expect((await fetch(`${url}/like`, as('ann'))).status).toBe(200);
  });

  it('counts each identifier on its own', async () => {
    const { url } = await start([LIKE]);
    for (let n = 0; n < 3; n++) await fetch(`${url}/like`, as('ann'));
    expect((await fetch(`${url}/like`, as('ann'))).status).toBe(429);
    expect((await fetch(`${url}/like`, as('bob'))).status).toBe(200);
  });

  it('charges all of a route’s policies or none: a refusal by one leaves the other untouched', async () => {
    const daily = { ...LIKE, name: 'daily', limit: 5, periodMs: 86_400_000 };
    const { url, engine } = await start([LIKE, daily], {}, { controllers: [BothController] });
    const statuses: number[] = [];
    for (let n = 0; n < 5; n++) statuses.push((await fetch(`${url}/both`, as('ann'))).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    // Three admissions were charged to daily; the two refusals were not.
    expect((await engine.peek('daily', 'ann')).remaining).toBe(2);
  });

  it('never refuses under a shadow policy, and shows no headers for it', async () => {
    const { url } = await start([{ ...LIKE, mode: 'shadow' }]);
    const answers = [];
    for (let n = 0; n < 5; n++) answers.push(await fetch(`${url}/like`, as('ann')));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers[4]!.headers.get('ratelimit')).toBeNull();
  });

  it('sends the draft headers by default, counting down', async () => {
    const { url } = await start([LIKE]);
    const first = await fetch(`${url}/like`, as('ann'));
    const second = await fetch(`${url}/like`, as('ann'));
    expect(first.headers.get('ratelimit-policy')).toBe('"like";q=3;w=60');
    expect(first.headers.get('ratelimit')).toMatch(/^"like";r=2;t=\d+$/);
    expect(second.headers.get('ratelimit')).toMatch(/^"like";r=1;t=\d+$/);
    expect(first.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

/** A subclass that counts by an account it looks up asynchronously, and skips a header's callers. */
@Injectable()
class AccountGuard extends SluiceGuard {
  protected override async getTracker(req: unknown): Promise<Tracked> {
    const headers = (req as { headers: Record<string, string | undefined> }).headers;
    await Promise.resolve();
    return { keyKind: 'header:x-account', identifier: `account-${headers['x-user'] ?? 'none'}` };
  }

  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    await Promise.resolve();
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string> }>();
    return req.headers['x-skip'] === 'yes';
  }
}

@Controller('account')
@UseGuards(AccountGuard)
class AccountController {
  @Get()
  @Throttle('like')
  like(): string {
    return 'liked';
  }
}

/** A subclass whose refusal does not throw: the guard then answers false, and Nest a 403. */
@Injectable()
class QuietGuard extends SluiceGuard {
  static readonly refused: string[] = [];

  protected override throwThrottlingException(
    _context: ExecutionContext,
    decision: Decision,
  ): Promise<void> {
    QuietGuard.refused.push(decision.policy);
    return Promise.resolve();
  }
}

@Controller('quiet')
@UseGuards(QuietGuard)
class QuietController {
  @Get()
  @Throttle('like')
  like(): string {
    return 'liked';
  }
}

describe('SluiceGuard subclassed', () => {
  it('lets a throwThrottlingException that does not throw answer false', async () => {
    const { url } = await start(
      [LIKE],
      {},
      { controllers: [QuietController], providers: [QuietGuard] },
    );
    const statuses: number[] = [];
    for (let n = 0; n < 4; n++) statuses.push((await fetch(`${url}/quiet`, as('ann'))).status);
    expect(statuses).toEqual([200, 200, 200, 403]);
    expect(QuietGuard.refused).toEqual(['like']);
  });

  it('asks an overridden getTracker and shouldSkip, even when they answer with promises', async () => {
    const { url, engine } = await start(
      [LIKE],
      {},
      {
        controllers: [AccountController],
        providers: [AccountGuard],
      },
    );
    const statuses: number[] = [];
    for (let n = 0; n < 4; n++) statuses.push((await fetch(`${url}/account`, as('ann'))).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    // Counted under the subclass's identifier, not the header's.
    expect(
      (await engine.peek('like', 'account-ann', { keyKind: 'header:x-account' })).remaining,
    ).toBe(0);
    expect((await engine.peek('like', 'ann')).remaining).toBe(3);
    const skipped = await fetch(`${url}/account`, {
      headers: { 'x-user': 'ann', 'x-skip': 'yes' },
    });
    expect(skipped.status).toBe(200);
  });
});
