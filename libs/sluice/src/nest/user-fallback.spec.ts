// A `key: 'user'` policy behind the app's own auth guard: under `global: true` Sluice's guard runs
// first, finds no user and counts by address. It says so once per route, and the route shows it.
import { Controller, Get, UseGuards, type LoggerService } from '@nestjs/common';
import { afterEach, describe, expect, it } from 'vitest';
import { Throttle } from '../metadata/throttle.decorator.js';
import { SignedInGuard, startMemoryApp, type MemoryApp } from '../testing/memory-app.fixture.js';
import { RouteRegistry } from './route.registry.js';
import { SluiceGuard } from './sluice.guard.js';

const LIKE = { name: 'like', algorithm: 'fixed-window', limit: 5, periodMs: 60_000 } as const;
const REPLY = { algorithm: 'fixed-window', limit: 2, periodMs: 60_000, key: 'user' } as const;

/** Auth on the controller; Sluice from `global: true`, which Nest runs first. */
@Controller('late')
@UseGuards(SignedInGuard)
class LateAuthController {
  @Get()
  @Throttle('late-reply', REPLY)
  reply(): string {
    return 'ok';
  }
}

/** Auth first, then Sluice, as the guide writes it. */
@Controller('ordered')
class OrderedController {
  @Get()
  @UseGuards(SignedInGuard, SluiceGuard)
  @Throttle('ordered-reply', REPLY)
  reply(): string {
    return 'ok';
  }
}

const started: MemoryApp[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((app) => app.close()));
});

function recorder(): LoggerService & { warnings: string[] } {
  const warnings: string[] = [];
  const ignore = () => undefined;
  return {
    warnings,
    warn: (message: unknown) => warnings.push(String(message)),
    log: ignore,
    error: ignore,
    debug: ignore,
    verbose: ignore,
  };
}

async function statuses(url: string, path: string, users: string[]): Promise<number[]> {
  const answers: number[] = [];
  for (const user of users) {
    answers.push((await fetch(`${url}${path}`, { headers: { 'x-user': user } })).status);
  }
  return answers;
}

describe('a per-user policy whose user is set after Sluice decides', () => {
  it('counts every user as one address, warns once naming route and policy, and marks the route', async () => {
    const app = await startMemoryApp(
      [LIKE],
      { global: true },
      { controllers: [LateAuthController] },
    );
    started.push(app);
    const logs = recorder();
    app.app.useLogger(logs);
    // Three different users share one address's count: the third is refused.
    expect(await statuses(app.url, '/late', ['ann', 'bob', 'cid'])).toEqual([200, 200, 429]);
    const fallbacks = logs.warnings.filter((line) => line.includes('counted a request by'));
    expect(fallbacks).toHaveLength(1);
    expect(fallbacks[0]).toContain('Policy "late-reply" (key "user") on LateAuthController.reply');
    expect(fallbacks[0]).toContain('@UseGuards(AuthGuard, SluiceGuard)');
    const route = app
      .get(RouteRegistry)
      .all()
      .find((each) => each.handler === 'reply');
    expect(route?.countedByAddress).toEqual(['late-reply']);
  });

  it('counts each user and says nothing when the auth guard runs first', async () => {
    const app = await startMemoryApp([LIKE], {}, { controllers: [OrderedController] });
    started.push(app);
    const logs = recorder();
    app.app.useLogger(logs);
    expect(await statuses(app.url, '/ordered', ['ann', 'bob', 'cid', 'ann'])).toEqual([
      200, 200, 200, 200,
    ]);
    expect(logs.warnings.filter((line) => line.includes('counted a request by'))).toEqual([]);
    const route = app
      .get(RouteRegistry)
      .all()
      .find((each) => each.owner === 'OrderedController');
    expect(route?.countedByAddress).toEqual([]);
  });
});
