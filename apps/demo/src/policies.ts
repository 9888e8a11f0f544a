import type { PolicyInput } from '@sluice/nest/internals';
import type { LoginLimits } from './config.js';

/**
 * User-Agents that announce a crawler: "Googlebot/2.1", "bingbot", "AhrefsBot", "YandexSpider",
 * "Yahoo! Slurp", "ia_archiver", "facebookexternalhit", "Baiduspider", "SemrushBot", …
 * Tested case-insensitively against the first 512 characters of the header.
 */
export const CRAWLER_USER_AGENT =
  'bot\\b|crawl|spider|slurp|archiver|facebookexternalhit|bingpreview|mediapartners';

/** The longest prompt POST /api/generate takes, in characters: what one call can be charged. */
export const MAX_PROMPT = 4_000;

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
      name: 'api-daily',
      description: 'quotes per key per calendar day (UTC): free plans 20, pro plans 1 000',
      algorithm: 'fixed-window',
      limit: 20,
      calendar: { unit: 'day', timeZone: 'UTC' },
      key: 'header:x-api-key',
      tiers: { free: { limit: 20 }, pro: { limit: 1_000 } },
    },
    {
      name: 'api-tokens',
      description:
        'generated tokens per key per calendar month (UTC), charged after the answer: free 2 000, pro 100 000',
      algorithm: 'fixed-window',
      limit: 2_000,
      calendar: { unit: 'month', timeZone: 'UTC' },
      key: 'header:x-api-key',
      // One token is reserved at admission; the answer's x-usage-tokens settles the rest.
      cost: 1,
      usage: { header: 'x-usage-tokens', maxCost: MAX_PROMPT, onFailure: 'refund' },
      tiers: { free: { limit: 2_000 }, pro: { limit: 100_000 } },
    },
    {
      name: 'api-export',
      description: 'exports in flight per key: free plans 1 at a time, pro plans 3',
      algorithm: 'concurrency',
      limit: 1,
      // A lease lapses after a minute if its instance dies mid-export.
      periodMs: 60_000,
      key: 'header:x-api-key',
      tiers: { free: { limit: 1 }, pro: { limit: 3 } },
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
