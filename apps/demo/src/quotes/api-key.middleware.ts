import { Inject, Injectable, UnauthorizedException, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { API_KEY_STORE, type ApiKeyStore, type Plan } from './api-key.store.js';

/** A request whose X-API-Key the demo issued, with that key's plan. */
export type KeyedRequest = Request & { plan?: Plan };

/**
 * The quote API's authentication: the X-API-Key header must name a key the demo issued (401
 * otherwise, before any limit is charged), and its plan rides on the request for the tier
 * resolver (app.module.ts).
 */
@Injectable()
export class ApiKeyMiddleware implements NestMiddleware {
  constructor(@Inject(API_KEY_STORE) private readonly keys: ApiKeyStore) {}

  async use(request: KeyedRequest, _response: Response, next: NextFunction): Promise<void> {
    const key = request.headers['x-api-key'];
    const plan = typeof key === 'string' ? await this.keys.planOf(key) : undefined;
    if (plan === undefined)
      throw new UnauthorizedException('X-API-Key must be a key the demo issued');
    request.plan = plan;
    next();
  }
}

/** The tier of a request the middleware let through: its key's plan. */
export function planOf(request: unknown): Plan | undefined {
  return (request as KeyedRequest).plan;
}
