import { Controller, Get, Post, UseGuards, type ModuleMetadata, type Type } from '@nestjs/common';
import { SluiceAdminModule } from '@sluice/admin';
import {
  SluiceGuard,
  SluiceModule,
  Throttle,
  type PolicyInput,
  type TierOptions,
} from '@sluice/nest';

/** Test tokens: long enough to pass validation, one per role. */
export const TOKENS = {
  admin: 'alice-admin-token-4d2e',
  operator: 'olga-operator-token-8b1c',
  viewer: 'victor-viewer-token-0f7a',
} as const;

const CREDENTIALS = `alice:admin:${TOKENS.admin},olga:operator:${TOKENS.operator},victor:viewer:${TOKENS.viewer}`;

/** The code default of `reply`, as the module's options declare it. */
export const REPLY_DEFAULT: PolicyInput = {
  name: 'reply',
  algorithm: 'sliding-log',
  limit: 3,
  periodMs: 60_000,
  key: 'header:x-user',
};

@Controller('posts')
@UseGuards(SluiceGuard)
export class PostsController {
  @Post('reply')
  @Throttle('reply')
  reply(): string {
    return 'replied';
  }

  @Get()
  @Throttle('browse', { algorithm: 'fixed-window', limit: 100, periodMs: 60_000, key: 'ip' })
  browse(): string {
    return 'posts';
  }
}

/** A route naming a policy that only the database defines. */
@Controller('search')
@UseGuards(SluiceGuard)
export class SearchController {
  @Get()
  @Throttle('search')
  search(): string {
    return 'results';
  }
}

export interface AdminAppOptions {
  /** Absent: the in-memory store and an in-process bus. */
  redisUrl?: string;
  prefix?: string;
  databaseUrl: string;
  controllers?: Array<Type<unknown>>;
  /** Registers the admin with forRootAsync and this path instead of forRoot's defaults. */
  asyncPath?: string;
  /** The module's tier options (its `tiers`), when a test needs plans. */
  tiers?: TierOptions;
  /** More code policies beside `reply`. */
  policies?: PolicyInput[];
}

/**
 * A quota whose period is a year: a test that grants and then compares totals never runs across
 * the end of its period, where Redis drops the credits granted so far (a minute's window did).
 */
export const LEDGER: PolicyInput = {
  name: 'ledger',
  algorithm: 'fixed-window',
  limit: 100,
  calendar: { unit: 'year', timeZone: 'UTC' },
  key: 'ip',
};

export function adminApp(options: AdminAppOptions): ModuleMetadata {
  const adminOptions = { database: options.databaseUrl, auth: { credentials: CREDENTIALS } };
  return {
    imports: [
      SluiceModule.forRoot({
        redis: options.redisUrl,
        prefix: options.prefix,
        policies: [REPLY_DEFAULT, ...(options.policies ?? [])],
        ...(options.tiers === undefined ? {} : { tiers: options.tiers }),
      }),
      options.asyncPath === undefined
        ? SluiceAdminModule.forRoot(adminOptions)
        : SluiceAdminModule.forRootAsync({
            useFactory: () => Promise.resolve(adminOptions),
            path: options.asyncPath,
          }),
    ],
    controllers: options.controllers ?? [PostsController],
  };
}
