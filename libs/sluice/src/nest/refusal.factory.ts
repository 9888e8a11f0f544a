import type { Decision } from '../engine/decision.js';
import { loadOptionalPeer } from '../peers/optional-peer.loader.js';
import { GraphQLRefusalException } from './graphql-refusal.exception.js';
import { TooManyRequestsException } from './too-many-requests.exception.js';

/**
 * The refusal of a request in its transport's way: a 429 TooManyRequestsException; in GraphQL a
 * GraphQLRefusalException; for a WebSocket message a WsException with the 429's body, once the
 * optional peer is loaded (the one refusal that waits).
 */
export function refusalOf(type: string, decision: Decision): Error | Promise<Error> {
  if (type === 'graphql') return withoutStack(() => new GraphQLRefusalException(decision));
  const refusal = withoutStack(() => new TooManyRequestsException(decision));
  if (type !== 'ws') return refusal;
  return wsRefusal(refusal);
}

async function wsRefusal(refusal: TooManyRequestsException): Promise<Error> {
  const { WsException } = await loadOptionalPeer(
    '@nestjs/websockets',
    'SluiceGuard on WebSocket handlers',
    () => import('@nestjs/websockets'),
  );
  return new WsException(refusal.getResponse());
}

/**
 * Builds an error without capturing a stack trace: a refusal is an answer, not a fault, and the
 * capture alone would cost more than the rest of a refusal from the block cache.
 */
function withoutStack<T>(build: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return build();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
