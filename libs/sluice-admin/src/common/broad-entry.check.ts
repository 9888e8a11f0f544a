import {
  compileAddressList,
  compileUserAgentPattern,
  type ListEntryInput,
} from '@sluice/nest/internals';
import type { Actor } from './actor.js';

/** Addresses at both ends of each family: a range holding all of them holds every client. */
const EVERY_V4 = ['0.0.0.0', '255.255.255.255'];
const EVERY_V6 = ['::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'];
/** User-Agents unlike each other, the empty one first: a pattern matching all matches anything. */
const UNLIKE_AGENTS = [
  '',
  'curl/8.5.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36',
  'python-requests/2.31.0',
  'Z',
];

/**
 * What an entry would reach beyond the usual, said as a sentence for the operator, or undefined:
 * an enforced entry matching every client (a /0 range, a User-Agent pattern that matches any), or
 * a deny entry matching the address or User-Agent of the operator adding it. Such an entry is
 * added only when the request confirms it (docs/operations.md, "Allow and deny lists").
 */
export function broadReach(
  entry: Pick<ListEntryInput, 'list' | 'kind' | 'value' | 'keyKind' | 'prefix' | 'mode'>,
  actor: Actor,
): string | undefined {
  if (entry.mode === 'shadow') return undefined;
  const denies = entry.list === 'deny';
  if (entry.kind === 'address') {
    const holds = compileAddressList([entry.value], 'value');
    if (EVERY_V4.every(holds) || EVERY_V6.every(holds)) {
      return `${entry.value} holds every address of its family: it would ${denies ? 'deny' : 'allow'} all traffic`;
    }
    if (denies && actor.ip !== null && holds(actor.ip)) {
      return `${entry.value} holds your own address (${actor.ip}): it would deny you`;
    }
    return undefined;
  }
  if (entry.kind === 'userAgent') {
    const pattern = compileUserAgentPattern(entry.value);
    if (UNLIKE_AGENTS.every((agent) => pattern.test(agent))) {
      return `the pattern ${JSON.stringify(entry.value)} matches every User-Agent: it would ${denies ? 'deny' : 'allow'} all traffic`;
    }
    if (denies && actor.userAgent !== null && pattern.test(actor.userAgent)) {
      return `the pattern ${JSON.stringify(entry.value)} matches your own User-Agent: it would deny you`;
    }
    return undefined;
  }
  if (denies && entry.keyKind === 'ip' && actor.ip !== null) {
    const own = entry.prefix === true ? actor.ip.startsWith(entry.value) : actor.ip === entry.value;
    if (own) return `${entry.value} names your own address (${actor.ip}): it would deny you`;
  }
  return undefined;
}
