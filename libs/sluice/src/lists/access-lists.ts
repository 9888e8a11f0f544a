import { compileAddressRange, parseAddress, type ParsedAddress } from '../net/address-range.js';
import { isOwnPolicy } from '../policy/own.policies.js';
import type { Policy } from '../policy/policy.types.js';
import { compileUserAgentPattern } from '../policy/user-agent.pattern.js';
import { MAX_LIST_ENTRIES, listEntrySchema, type ListEntry } from './list-entry.schema.js';

/** Addresses remembered parsed; past this many, the memory starts again. */
const KNOWN_ADDRESSES = 10_000;
/** Where a request's client object keeps the ids of the entries already counted for it. */
const COUNTED = Symbol('sluice.listEntriesCounted');

/** Long enough for any real User-Agent; bounds the work a hostile one can cause a pattern. */
const MAX_USER_AGENT_TESTED = 512;

/** What the lists match a call on: who it counts, and the request's client where there is one. */
export interface ListSubject {
  /** The kind of identifier the call counts. */
  keyKind: string;
  /** The identifier it counts. */
  identifier: string;
  /** The client's own address (not grouped by ipv6Prefix), when the caller knows it. */
  address?: string | undefined;
  /** The request's User-Agent, when the caller knows it. */
  userAgent?: string | undefined;
  /**
   * One object per request, shared by its calls (one per identifier): an entry matched by several
   * of them counts once for the request.
   */
  request?: object | undefined;
}

/** Matches made by one entry on this instance since they were last taken. */
export interface ListHits {
  /** Calls the entry decided (an enforced entry). */
  enforced: number;
  /** Calls it would have decided (a shadow entry). */
  shadow: number;
}

/** An entry compiled once: its test, the policies it applies to, its expiry in epoch ms. */
interface Compiled {
  entry: ListEntry;
  policies: ReadonlySet<string> | null;
  expiresAtMs: number | null;
  test: (subject: ListSubject, parsed: () => ParsedAddress | undefined) => boolean;
}

/** Per policy of a call: the entry that decides it. */
export type ListVerdicts = Map<Policy, ListEntry>;

/**
 * The allow and deny lists in force on this instance, as the last snapshot published them
 * (docs/guide.md, allow and deny lists). A call's policies are matched once: an enforced deny
 * entry decides a policy before an allow entry does; shadow entries only count.
 */
export class AccessLists {
  /** Every match since the start, by list and entry mode: what the metrics count. */
  readonly matches = {
    allow: { enforce: 0, shadow: 0 },
    deny: { enforce: 0, shadow: 0 },
  };
  private compiled: Compiled[] = [];
  private hits = new Map<string, ListHits>();
  private readonly addresses = new Map<string, ParsedAddress | null>();
  private needsAddress = false;
  private needsUserAgent = false;

  /** How many entries are in force (one that expired since the last snapshot included). */
  get size(): number {
    return this.compiled.length;
  }

  /** Whether an entry matches client addresses: callers then pass the address. */
  get matchesAddresses(): boolean {
    return this.needsAddress;
  }

  /** Whether an entry matches User-Agents: callers then pass the header. */
  get matchesUserAgents(): boolean {
    return this.needsUserAgent;
  }

  /** The entries in force. */
  entries(): ListEntry[] {
    return this.compiled.map((each) => each.entry);
  }

  /**
   * Replaces every entry. An entry expired at `nowMs` (epoch ms) is left out and counts towards
   * nothing; an entry this instance cannot read is left out, and named in what this returns; past
   * MAX_LIST_ENTRIES entries in force, the rest are left out too, and said so.
   */
  replace(inputs: readonly unknown[], nowMs = 0): string[] {
    const problems: string[] = [];
    const compiled: Compiled[] = [];
    for (const [index, input] of inputs.entries()) {
      const parsed = listEntrySchema.safeParse(input);
      if (parsed.success && expired(parsed.data, nowMs)) continue;
      if (compiled.length === MAX_LIST_ENTRIES) {
        problems.push(`${inputs.length - index} list entries past the ${MAX_LIST_ENTRIES} held`);
        break;
      }
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const id = (input as { id?: unknown } | null)?.id;
        problems.push(
          `list entry ${typeof id === 'string' ? id : `#${index}`}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is invalid'}`,
        );
        continue;
      }
      compiled.push(compile(parsed.data));
    }
    this.compiled = compiled;
    this.needsAddress = compiled.some((each) => each.entry.kind === 'address');
    this.needsUserAgent = compiled.some((each) => each.entry.kind === 'userAgent');
    return problems;
  }

  /**
   * The enforced entry deciding each of `policies` for the subject at `nowMs` (epoch ms): a deny
   * entry, else an allow entry; undefined when none does. With `count`, each entry that matched is
   * counted once for the request (the subject's `request`), as enforced or as shadow.
   */
  decide(
    policies: readonly Policy[],
    subject: ListSubject,
    nowMs: number,
    count = true,
  ): ListVerdicts | undefined {
    const found = this.match(policies, subject, nowMs);
    if (found === undefined) return undefined;
    if (count) this.count(found.matched, subject.request);
    return found.verdicts;
  }

  /**
   * What decide finds, counting nothing: the verdicts, and the entry that decided the request
   * (`matched`, shadow ones too: see rank), for `count` once the caller knows it acts on it.
   * Undefined when nothing matched.
   */
  match(
    policies: readonly Policy[],
    subject: ListSubject,
    nowMs: number,
  ): { verdicts: ListVerdicts | undefined; matched: ListEntry[] } | undefined {
    if (this.compiled.length === 0) return undefined;
    let address: ParsedAddress | undefined | null = null;
    const parsed = () => {
      if (address === null) {
        address = subject.address === undefined ? undefined : this.parsed(subject.address);
      }
      return address;
    };
    let verdicts: ListVerdicts | undefined;
    let decider: ListEntry | undefined;
    for (const each of this.compiled) {
      if (each.expiresAtMs !== null && each.expiresAtMs <= nowMs) continue;
      if (!applies(each, policies) || !each.test(subject, parsed)) continue;
      if (decider === undefined || rank(each.entry) < rank(decider)) decider = each.entry;
      if (each.entry.mode === 'shadow') continue;
      verdicts ??= new Map<Policy, ListEntry>();
      for (const policy of policies) {
        if (each.policies !== null && !each.policies.has(policy.name)) continue;
        if (isOwnPolicy(policy.name)) continue;
        const current = verdicts.get(policy);
        if (current === undefined || (current.list === 'allow' && each.entry.list === 'deny')) {
          verdicts.set(policy, each.entry);
        }
      }
    }
    return decider === undefined ? undefined : { verdicts, matched: [decider] };
  }

  /**
   * Counts a request under the entry that decided it, once however many of its calls (one per
   * identifier) matched: `request` remembers that it was counted.
   */
  count(matched: readonly ListEntry[], request?: object): void {
    for (const entry of matched) {
      if (request !== undefined) {
        const holder = request as { [COUNTED]?: string[] };
        const counted = (holder[COUNTED] ??= []);
        if (counted.length > 0) return;
        counted.push(entry.id);
      }
      this.matches[entry.list][entry.mode]++;
      let hits = this.hits.get(entry.id);
      if (hits === undefined) {
        hits = { enforced: 0, shadow: 0 };
        this.hits.set(entry.id, hits);
      }
      if (entry.mode === 'shadow') hits.shadow++;
      else hits.enforced++;
    }
  }

  /** An address parsed once, then remembered: parsing costs more than the rest of a match. */
  private parsed(address: string): ParsedAddress | undefined {
    let known = this.addresses.get(address);
    if (known === undefined) {
      known = parseAddress(address) ?? null;
      if (this.addresses.size >= KNOWN_ADDRESSES) this.addresses.clear();
      this.addresses.set(address, known);
    }
    return known ?? undefined;
  }

  /** The matches counted since the last call, by entry id; the count starts again from zero. */
  takeHits(): Map<string, ListHits> {
    const taken = this.hits;
    this.hits = new Map();
    return taken;
  }

  /** Adds back matches taken but not stored, so the next flush sends them. */
  giveBackHits(hits: ReadonlyMap<string, ListHits>): void {
    for (const [id, counts] of hits) {
      const current = this.hits.get(id) ?? { enforced: 0, shadow: 0 };
      current.enforced += counts.enforced;
      current.shadow += counts.shadow;
      this.hits.set(id, current);
    }
  }
}

/**
 * Whether the entry applies to one of the policies: Sluice's own (the admin's sign-in limits)
 * are never among them.
 */
function applies(each: Compiled, policies: readonly Policy[]): boolean {
  for (const policy of policies) {
    if (isOwnPolicy(policy.name)) continue;
    if (each.policies === null || each.policies.has(policy.name)) return true;
  }
  return false;
}

/**
 * Which of a request's matching entries decided it, lowest first: an enforced deny entry, then an
 * enforced allow entry; otherwise the entry that would have, shadow deny before shadow allow.
 * Overlapping entries count the request once, under that one (docs/guide.md, allow and deny lists).
 */
function rank(entry: ListEntry): number {
  return (entry.mode === 'shadow' ? 2 : 0) + (entry.list === 'deny' ? 0 : 1);
}

/** Whether the entry had expired by `nowMs`. */
function expired(entry: ListEntry, nowMs: number): boolean {
  return entry.expiresAt !== null && Date.parse(entry.expiresAt) <= nowMs;
}

function compile(entry: ListEntry): Compiled {
  return {
    entry,
    policies: entry.policies === null ? null : new Set(entry.policies),
    expiresAtMs: entry.expiresAt === null ? null : Date.parse(entry.expiresAt),
    test: tester(entry),
  };
}

function tester(entry: ListEntry): Compiled['test'] {
  const { value } = entry;
  if (entry.kind === 'address') {
    const inRange = compileAddressRange(value) as (ip: ParsedAddress) => boolean;
    return (_subject, parsed) => {
      const ip = parsed();
      return ip !== undefined && inRange(ip);
    };
  }
  if (entry.kind === 'userAgent') {
    const pattern = compileUserAgentPattern(value);
    return (subject) =>
      subject.userAgent !== undefined &&
      pattern.test(subject.userAgent.slice(0, MAX_USER_AGENT_TESTED));
  }
  const { keyKind, prefix } = entry;
  return prefix
    ? (subject) => subject.keyKind === keyKind && subject.identifier.startsWith(value)
    : (subject) => subject.keyKind === keyKind && subject.identifier === value;
}
