import type { ExecutionContext } from '@nestjs/common';

/**
 * A named tracker: what a policy with `key: '<name>'` counts. Returns the identifier, or
 * undefined to count the request by its client address instead.
 */
export type Tracker = (
  request: any, // eslint-disable-line @typescript-eslint/no-explicit-any -- Express, Fastify, GraphQL or socket request
  context: ExecutionContext,
) => string | undefined | Promise<string | undefined>;
