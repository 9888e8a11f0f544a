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
  /**
   * Its `key: 'user'` policies that counted a request by the client's address on this instance,
   * since it started, because no user was set when the guard ran (docs/guide.md, "Per-user
   * limits and guard order").
   */
  countedByAddress: string[];
}

/** Every decorated handler of the application, filled in at start-up. */
export class RouteRegistry {
  private routes: ThrottledRoute[] = [];
  private byName = new Map<string, ThrottledRoute>();
  private readonly fellBack = new Set<string>();

  /** Puts in what route discovery found. */
  replace(routes: ThrottledRoute[]): void {
    this.routes = routes;
    this.byName = new Map(routes.map((route) => [`${route.owner}.${route.handler}`, route]));
  }

  /** Every route found. */
  all(): readonly ThrottledRoute[] {
    return this.routes;
  }

  /** The routes a policy decides. */
  usedBy(policy: string): ThrottledRoute[] {
    return this.routes.filter((route) => !route.skipped && route.policies.includes(policy));
  }

  /**
   * Records that `policy` counted a request on `route` (`Owner.handler`) by its address for want
   * of a user; true the first time for that route and policy.
   */
  countedByAddress(route: string, policy: string): boolean {
    const id = `${route}\u0000${policy}`;
    if (this.fellBack.has(id)) return false;
    this.fellBack.add(id);
    this.byName.get(route)?.countedByAddress.push(policy);
    return true;
  }
}
