/** A handler under `@Throttle()` or `@SkipThrottle()`, as route discovery found it. */
export interface ThrottledRoute {
  /** The controller, resolver or gateway class. */
  owner: string;
  /** The method's name. */
  handler: string;
  /** HTTP method and path for controller routes; null for other handlers. */
  method: string | null;
  /** The controller's and the method's paths joined (no global prefix); null elsewhere. */
  path: string | null;
  /** The policies deciding this handler, method over class. */
  policies: string[];
  /** True under `@SkipThrottle()`: not decided. */
  skipped: boolean;
  /** The tier `@ThrottleTier()` decides its requests at, method over class; null: none. */
  tier: string | null;
}

/** Every decorated handler of the application, filled in at start-up. */
export class RouteRegistry {
  private routes: ThrottledRoute[] = [];

  /** Puts in what route discovery found. */
  replace(routes: ThrottledRoute[]): void {
    this.routes = routes;
  }

  /** Every route found. */
  all(): readonly ThrottledRoute[] {
    return this.routes;
  }

  /** The routes a policy decides. */
  usedBy(policy: string): ThrottledRoute[] {
    return this.routes.filter((route) => !route.skipped && route.policies.includes(policy));
  }
}
