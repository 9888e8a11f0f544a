import { RE2JS } from 're2js';

/**
 * A policy's `match.userAgent`, compiled for RE2's engine, which matches in time linear in the
 * input whatever the pattern: an operator's pattern such as `^(a+)+$` cannot make a hostile
 * User-Agent cost the event loop seconds, as it does on JavaScript's backtracking engine.
 * RE2 has no lookaround or backreferences; a pattern using them is refused at validation.
 */
export interface UserAgentPattern {
  /** Whether the pattern is found in `userAgent`, whatever its case. */
  test(userAgent: string): boolean;
}

/** Case-insensitive, found anywhere in the header; throws on a pattern RE2 does not accept. */
export function compileUserAgentPattern(source: string): UserAgentPattern {
  const compiled = RE2JS.compile(source, RE2JS.CASE_INSENSITIVE);
  return { test: (userAgent) => compiled.test(userAgent) };
}

export function isUserAgentPattern(source: string): boolean {
  try {
    compileUserAgentPattern(source);
    return true;
  } catch {
    return false;
  }
}
