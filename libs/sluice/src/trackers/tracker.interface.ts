import type { ExecutionContext } from '@nestjs/common';

/** What a tracker may ask of the request beyond itself, resolved as the guard resolves it. */
export interface TrackedClient {
  /** The client's address, through the proxies `trustProxy` trusts (the `ip` key's identifier). */
  address(): string;
}

/**
 * A named tracker: what a policy with `key: '<name>'` counts. Returns the identifier, or
 * undefined to count the request by its client address instead. `client` gives the address the
 * module resolves, so a tracker that combines it with something else (`<address>/<username>`)
 * reads it as every policy does.
 */
export type Tracker = (
  request: any, // eslint-disable-line @typescript-eslint/no-explicit-any -- Express, Fastify, GraphQL or socket request
  context: ExecutionContext,
  client: TrackedClient,
) => string | undefined | Promise<string | undefined>;
