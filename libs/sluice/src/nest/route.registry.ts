/** A handler under @Throttle() or @SkipThrottle(), as route discovery found it. */
export interface ThrottledRoute {
  /** The controller, resolver or gateway class. */
  owner: string;
  handler: string;
  /** HTTP method and path for controller routes; null for other handlers. */
  method: string | null;
  path: string | null;
  /** The policies deciding this handler, method over class. */
  policies: string[];
  skipped: boolean;
}

/** Every decorated handler of the application, filled in at start-up. */
export class RouteRegistry {
  private routes: ThrottledRoute[] = [];

  replace(routes: ThrottledRoute[]): void {
    this.routes = routes;
  }

  all(): readonly ThrottledRoute[] {
    return this.routes;
  }

  /** The routes a policy decides. */
  usedBy(policy: string): ThrottledRoute[] {
    return this.routes.filter((route) => !route.skipped && route.policies.includes(policy));
  }
}
