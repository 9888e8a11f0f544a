import type { ModulesContainer } from '@nestjs/core';
import { HandlerOutcomeInterceptor } from './handler-outcome.interceptor.js';

/** Nest's own key for the interceptors `@UseInterceptors()` puts on a class. */
const INTERCEPTORS = '__interceptors__';
/** What `@Resolver()` of @nestjs/graphql and `@WebSocketGateway()` put on their class. */
const RESOLVER = 'graphql:resolver_type';
const GATEWAY = 'websockets:is_gateway';

/**
 * Puts HandlerOutcomeInterceptor on every GraphQL resolver and WebSocket gateway of the app, as
 * if each had `@UseInterceptors()` it, and on nothing else: an HTTP handler with an interceptor
 * runs through Nest's rxjs chain on every request, one without does not (docs/benchmarks.md,
 * "An HTTP request without the outcome interceptor"). It runs while Nest creates the
 * providers, before `app.init()` builds any handler's context. The instance is put, not the
 * class, so no module has to provide it. Returns how many classes it marked.
 */
export function attachOutcomeInterceptor(modules: ModulesContainer): number {
  const interceptor = new HandlerOutcomeInterceptor();
  const marked = new Set<object>();
  for (const module of modules.values()) {
    for (const wrapper of module.providers.values()) {
      const type: unknown = wrapper.metatype;
      if (typeof type !== 'function' || marked.has(type)) continue;
      if (!Reflect.hasMetadata(RESOLVER, type) && Reflect.getMetadata(GATEWAY, type) !== true) {
        continue;
      }
      marked.add(type);
      const own = (Reflect.getOwnMetadata(INTERCEPTORS, type) as unknown[] | undefined) ?? [];
      // An app built again from the same classes (tests) finds it there already.
      if (own.some((each) => each instanceof HandlerOutcomeInterceptor)) continue;
      // First of the class's own: it sees the handler's end after the others have shaped it.
      Reflect.defineMetadata(INTERCEPTORS, [interceptor, ...own], type);
    }
  }
  return marked.size;
}
