import type { PolicyInput } from '@sluice/nest/internals';
import type { LoginLimits } from './config.js';

/**
 * User-Agents that announce a crawler: "Googlebot/2.1", "bingbot", "AhrefsBot", "YandexSpider",
 * "Yahoo! Slurp", "ia_archiver", "facebookexternalhit", "Baiduspider", "SemrushBot", …
 * Tested case-insensitively against the first 512 characters of the header.
 */
export const CRAWLER_USER_AGENT =
  'bot\\b|crawl|spider|slurp|archiver|facebookexternalhit|bingpreview|mediapartners';

/** Every limit the forum keeps, in one place. */
export function demoPolicies(login: LoginLimits): PolicyInput[] {
  return [
    {
      name: 'api-burst',
      description: 'the quote API per key: free plans 5 per 10 s, pro plans 50',
      algorithm: 'sliding-log',
      limit: 5,
      periodMs: 10_000,
      key: 'header:x-api-key',
      tiers: { free: { limit: 5 }, pro: { limit: 50 } },
    },
    {
      name: 'reply',
      description: 'Harry may reply five times a minute',
      algorithm: 'sliding-log',
      limit: 5,
      periodMs: 60_000,
      key: 'user',
    },
    {
      name: 'like',
      description: 'likes: 10 per 10 s sustained, bursts of 20',
      algorithm: 'token-bucket',
      limit: 10,
      periodMs: 10_000,
      burst: 20,
      key: 'user',
    },
    {
      name: 'crawler',
      description: 'crawlers read the news at most 5 times a minute per address',
      algorithm: 'gcra',
      limit: 5,
      periodMs: 60_000,
      key: 'ip',
      match: { userAgent: CRAWLER_USER_AGENT },
    },
    {
      name: 'news',
      description: 'people read the news 60 times a minute per address, in bursts of 30',
      algorithm: 'gcra',
      limit: 60,
      periodMs: 60_000,
      burst: 30,
      key: 'ip',
    },
    {
      name: 'feed',
      description: 'the feed is served at 10 per second per address; up to 2 s of queue',
      algorithm: 'leaky-bucket',
      limit: 10,
      periodMs: 1000,
      maxDelayMs: 2000,
      key: 'ip',
    },
    {
      name: 'login',
      description:
        'failed logins per address and username; each block after the first lasts twice as long',
      algorithm: 'fixed-window',
      limit: login.maxFailures,
      periodMs: login.windowMs,
      key: 'login',
      count: 'failures',
      penalty: {
        afterViolations: 1,
        blockMs: login.blockMs,
        escalation: 2,
        maxBlockMs: login.maxBlockMs,
      },
    },
  ];
}
