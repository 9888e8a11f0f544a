import { IntrinsicException } from '@nestjs/common';
import type { Decision } from '../engine/decision.js';
import { refusalBody } from './too-many-requests.exception.js';

/** What a GraphQL client reads in a refused field's `errors[].extensions`. */
export interface GraphQLRefusalExtensions {
  /** Always `TOO_MANY_REQUESTS`: what Apollo and Mercurius clients branch on. */
  code: 'TOO_MANY_REQUESTS';
  /** The policy that refused. */
  policy: string;
  /** How long to wait before the field can be asked for again, in ms. */
  retryAfterMs: number;
}

/**
 * A refusal inside a GraphQL operation. graphql-js copies an error's own `extensions` into the
 * field's error, so the client reads `code`, `policy` and `retryAfterMs` whatever the driver and
 * its error formatter; it is an IntrinsicException, so Nest does not log it as a fault, and it
 * does not look like an HttpException, so Nest's Apollo driver does not rewrite its code into
 * INTERNAL_SERVER_ERROR (docs/guide.md, "GraphQL").
 */
export class GraphQLRefusalException extends IntrinsicException {
  /** What the client reads beside the message. */
  readonly extensions: GraphQLRefusalExtensions;

  constructor(
    /** The refusal: which policy, why, and how long to wait. */
    readonly decision: Decision,
  ) {
    const body = refusalBody(decision);
    super(body.message);
    this.name = 'GraphQLRefusalException';
    this.extensions = {
      code: 'TOO_MANY_REQUESTS',
      policy: body.policy,
      retryAfterMs: body.retryAfterMs,
    };
  }
}
