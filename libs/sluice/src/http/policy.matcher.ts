import type { Policy } from '../policy/policy.types.js';
import { compileUserAgentPattern, type UserAgentPattern } from '../policy/user-agent.pattern.js';
import { userAgentOf } from './response.access.js';

/** Long enough for any real User-Agent; bounds the work a hostile one can cause a pattern. */
const MAX_USER_AGENT_TESTED = 512;

/** Which of a handler's policies apply to a request: a policy's `match` may leave it out. */
export class PolicyMatcher {
  private readonly userAgentPatterns = new WeakMap<Policy, UserAgentPattern>();

  applicable(policies: readonly Policy[], req: unknown): readonly Policy[] {
    return policies.every(matchesAll)
      ? policies
      : policies.filter((policy) => this.applies(policy, req));
  }

  private applies(policy: Policy, req: unknown): boolean {
    if (policy.match === null) return true;
    let pattern = this.userAgentPatterns.get(policy);
    if (pattern === undefined) {
      pattern = compileUserAgentPattern(policy.match.userAgent);
      this.userAgentPatterns.set(policy, pattern);
    }
    const userAgent = userAgentOf(req);
    return userAgent !== undefined && pattern.test(userAgent.slice(0, MAX_USER_AGENT_TESTED));
  }
}

/** A policy without `match` applies to every request of its routes. */
const matchesAll = (policy: Policy): boolean => policy.match === null;
