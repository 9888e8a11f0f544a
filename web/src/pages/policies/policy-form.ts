import type { PolicyView, PolicyWriteRequest, ReplayRule } from '@sluice/admin/api';
import type {
  AlgorithmName,
  CalendarUnit,
  Consistency,
  PolicyMode,
  StoreErrorMode,
} from '@sluice/nest';
import { traitsOf, type SimulatedPolicy } from '@sluice/nest/simulator';
import { exactDurationText, parseDuration } from '../../shared/duration';
import { isoToLocalInput, localInputToIso } from '../../shared/format';

export const ALGORITHM_LABELS: Record<AlgorithmName, string> = {
  'fixed-window': 'Fixed window',
  'sliding-log': 'Sliding log',
  'sliding-window': 'Sliding window',
  'token-bucket': 'Token bucket',
  'leaky-bucket': 'Leaky bucket (shaping)',
  gcra: 'GCRA',
  concurrency: 'Concurrency (requests in flight)',
};

/** The calendar periods a fixed-window may count in, as the editor offers them. */
export const CALENDAR_UNIT_LABELS: Record<CalendarUnit, string> = {
  day: 'Each day',
  week: 'Each ISO week (from Monday)',
  month: 'Each month',
  year: 'Each year',
};

/** Which of the optional rate fields an algorithm takes, as its traits say. */
export function algorithmFields(algorithm: AlgorithmName) {
  const traits = traitsOf(algorithm);
  return {
    calendar: traits.quota,
    isWindow: traits.window,
    burst: traits.burst,
    segments: traits.segments,
    maxDelayMs: traits.shapes,
    /** The period is how long a lease lasts unreleased, not a window. */
    lease: traits.holdsSlots,
    usage: traits.quota,
  };
}

/** 'anchor': the override only moves a monthly quota's renewal day. */
export type OverrideKind = 'limit' | 'unlimited' | 'deny' | 'tier' | 'anchor';

/** One tier as the editor holds it: its name and rate as typed. */
export interface TierValues {
  name: string;
  limit: string;
  /** Buckets only; empty: the tier's limit. */
  burst: string;
  /** leaky-bucket only, as written ("2 s"). */
  maxDelayMs: string;
}

export interface OverrideValues {
  identifier: string;
  /** The kind of identifier it names; empty: the policy's key. */
  keyKind: string;
  /** Every identifier that starts with `identifier`. */
  prefix: boolean;
  kind: OverrideKind;
  limit: string;
  /** The tier it assigns, for kind 'tier'. */
  tier: string;
  /** A monthly quota's renewal day for the identifier, as typed; empty: the policy's. */
  anchorDay: string;
  /** datetime-local; empty: never expires. */
  expiresAt: string;
}

/**
 * The editor's values: numbers as typed, so a bad one reaches the server and its message, and
 * durations (the `…Ms` fields) as people write them: "1 min", "90 s", "2 h".
 */
export interface PolicyFormValues {
  name: string;
  description: string;
  algorithm: AlgorithmName;
  limit: string;
  periodMs: string;
  /** fixed-window: '' for windows of periodMs, else the calendar unit. */
  calendarUnit: '' | CalendarUnit;
  timeZone: string;
  /** month: the day periods start on, as typed; empty: the 1st. */
  anchorDay: string;
  burst: string;
  segments: string;
  maxDelayMs: string;
  cost: string;
  /** fixed-window: the real cost settled after the response. */
  usageOn: boolean;
  usageHeader: string;
  usageMaxCost: string;
  usageOnFailure: 'refund' | 'keep';
  key: string;
  userAgent: string;
  count: 'all' | 'failures';
  mode: PolicyMode;
  onStoreError: StoreErrorMode;
  consistency: Consistency;
  /** How often an eventual policy's hits go to Redis, as written ("50 ms"). */
  syncMs: string;
  penaltyOn: boolean;
  afterViolations: string;
  blockMs: string;
  escalation: string;
  maxBlockMs: string;
  forgetAfterMs: string;
  overrides: OverrideValues[];
  tiers: TierValues[];
  comment: string;
}

const text = (value: number | null | undefined) => (value == null ? '' : String(value));
const duration = (ms: number | null | undefined) => (ms == null ? '' : exactDurationText(ms));

export const DURATION_RULE = 'write a duration such as 500 ms, 90 s, 1 min, 2 h or 1 h 30 min';

/** The editor's check of a duration field: empty (the server says whether it may be) or readable. */
export const durationRules = {
  validate: (value: string) =>
    value.trim() === '' || parseDuration(value) !== undefined || DURATION_RULE,
};

export const NEW_POLICY: PolicyFormValues = {
  name: '',
  description: '',
  algorithm: 'fixed-window',
  limit: '10',
  periodMs: '1 min',
  calendarUnit: '',
  timeZone: 'UTC',
  anchorDay: '',
  burst: '',
  segments: '',
  maxDelayMs: '',
  cost: '1',
  usageOn: false,
  usageHeader: '',
  usageMaxCost: '',
  usageOnFailure: 'refund',
  key: 'ip',
  userAgent: '',
  count: 'all',
  mode: 'enforce',
  onStoreError: 'allow',
  consistency: 'exact',
  syncMs: '50 ms',
  penaltyOn: false,
  afterViolations: '3',
  blockMs: '1 min',
  escalation: '',
  maxBlockMs: '',
  forgetAfterMs: '',
  overrides: [],
  tiers: [],
  comment: '',
};

export function toFormValues(policy: PolicyView): PolicyFormValues {
  const penalty = policy.penalty;
  return {
    name: policy.name,
    description: policy.description ?? '',
    algorithm: policy.algorithm,
    limit: text(policy.limit),
    periodMs: policy.calendar === null ? duration(policy.periodMs) : '',
    calendarUnit: policy.calendar?.unit ?? '',
    timeZone: policy.calendar?.timeZone ?? 'UTC',
    anchorDay: text(policy.calendar?.anchorDay),
    burst: text(policy.burst),
    segments: text(policy.segments),
    maxDelayMs: duration(policy.maxDelayMs),
    cost: text(policy.cost),
    usageOn: policy.usage !== null,
    usageHeader: policy.usage?.header ?? '',
    usageMaxCost: text(policy.usage?.maxCost),
    usageOnFailure: policy.usage?.onFailure ?? 'refund',
    key: policy.key,
    userAgent: policy.match?.userAgent ?? '',
    count: policy.count,
    mode: policy.mode,
    onStoreError: policy.onStoreError,
    consistency: policy.consistency,
    syncMs: duration(policy.syncMs),
    penaltyOn: penalty !== null,
    afterViolations: text(penalty?.afterViolations ?? 3),
    blockMs: duration(penalty?.blockMs ?? 60_000),
    escalation: text(penalty?.escalation),
    maxBlockMs: duration(penalty?.maxBlockMs),
    forgetAfterMs: duration(penalty?.forgetAfterMs),
    overrides: policy.overrides.map((override) => ({
      identifier: override.identifier,
      keyKind: override.keyKind === policy.key ? '' : override.keyKind,
      prefix: override.prefix === true,
      kind:
        typeof override.tier === 'string'
          ? 'tier'
          : override.unlimited
            ? 'unlimited'
            : override.limit === 0
              ? 'deny'
              : override.limit === null && override.anchorDay !== null
                ? 'anchor'
                : 'limit',
      limit: text(override.limit),
      tier: override.tier ?? '',
      anchorDay: text(override.anchorDay),
      expiresAt:
        override.expiresAt === null
          ? ''
          : isoToLocalInput(new Date(override.expiresAt).toISOString()),
    })),
    tiers: Object.entries(policy.tiers ?? {}).map(([name, tier]) => ({
      name,
      limit: text(tier.limit),
      burst: text(tier.burst),
      maxDelayMs: duration(tier.maxDelayMs),
    })),
    comment: '',
  };
}

/** A typed number, or the text itself when it is not one, so the server names the field. */
function number(value: string): number | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  const parsed = Number(trimmed);
  return Number.isFinite(parsed) ? parsed : (trimmed as unknown as number);
}

const optional = (value: string) => number(value) ?? null;

/** The form's calendar as the API takes it, or null: windows of `periodMs`. */
function calendarOf(
  values: PolicyFormValues,
): { unit: CalendarUnit; timeZone: string; anchorDay: number | null } | null {
  if (!algorithmFields(values.algorithm).calendar || values.calendarUnit === '') return null;
  return {
    unit: values.calendarUnit,
    timeZone: values.timeZone.trim(),
    anchorDay: values.calendarUnit === 'month' ? optional(values.anchorDay) : null,
  };
}

/** A written duration in milliseconds, or the text itself when it is not one (see `number`). */
function ms(value: string): number | undefined {
  if (value.trim() === '') return undefined;
  return parseDuration(value) ?? (value.trim() as unknown as number);
}

/** What the editor sends: the rules of the algorithm chosen, nothing of the others. */
export function toWriteRequest(values: PolicyFormValues, version: number): PolicyWriteRequest {
  const fields = algorithmFields(values.algorithm);
  const monthly = fields.calendar && values.calendarUnit === 'month';
  const calendar = calendarOf(values);
  const penalty = values.penaltyOn
    ? {
        afterViolations: number(values.afterViolations) as number,
        blockMs: ms(values.blockMs) as number,
        ...(number(values.escalation) === undefined
          ? {}
          : { escalation: number(values.escalation) }),
        ...(ms(values.maxBlockMs) === undefined ? {} : { maxBlockMs: ms(values.maxBlockMs) }),
        ...(ms(values.forgetAfterMs) === undefined
          ? {}
          : { forgetAfterMs: ms(values.forgetAfterMs) }),
      }
    : null;
  return {
    name: values.name,
    version,
    description: values.description.trim() === '' ? null : values.description,
    algorithm: values.algorithm,
    limit: number(values.limit) as number,
    ...(calendar === null ? { periodMs: ms(values.periodMs), calendar: null } : { calendar }),
    burst: fields.burst ? optional(values.burst) : null,
    segments: fields.segments ? optional(values.segments) : null,
    maxDelayMs: fields.maxDelayMs ? (ms(values.maxDelayMs) ?? null) : null,
    cost: number(values.cost) ?? 1,
    usage:
      fields.usage && values.usageOn
        ? {
            header: values.usageHeader.trim() === '' ? null : values.usageHeader.trim(),
            maxCost: number(values.usageMaxCost) as number,
            onFailure: values.usageOnFailure,
          }
        : null,
    key: values.key,
    match: values.userAgent.trim() === '' ? null : { userAgent: values.userAgent },
    count: values.count,
    mode: values.mode,
    onStoreError: values.onStoreError,
    consistency: values.consistency,
    ...(values.consistency === 'eventual' && ms(values.syncMs) !== undefined
      ? { syncMs: ms(values.syncMs) }
      : {}),
    penalty,
    overrides: values.overrides.map((override) => ({
      identifier: override.identifier,
      ...(override.keyKind.trim() === '' ? {} : { keyKind: override.keyKind.trim() }),
      ...(override.prefix ? { prefix: true } : {}),
      ...(override.kind === 'unlimited'
        ? { unlimited: true }
        : override.kind === 'tier'
          ? { tier: override.tier }
          : override.kind === 'anchor'
            ? {}
            : { limit: override.kind === 'deny' ? 0 : (number(override.limit) as number) }),
      ...(monthly && number(override.anchorDay) !== undefined
        ? { anchorDay: number(override.anchorDay) }
        : {}),
      expiresAt: localInputToIso(override.expiresAt) ?? null,
    })),
    tiers:
      values.tiers.length === 0
        ? null
        : Object.fromEntries(
            values.tiers.map((tier) => [
              tier.name.trim(),
              {
                limit: number(tier.limit) as number,
                ...(fields.burst ? { burst: optional(tier.burst) } : {}),
                ...(fields.maxDelayMs ? { maxDelayMs: ms(tier.maxDelayMs) ?? null } : {}),
              },
            ]),
          ),
    comment: values.comment.trim() === '' ? null : values.comment,
  };
}

/** The names given to more than one tier: sent, the last would silently replace the others. */
export function repeatedTierNames(tiers: readonly TierValues[]): Set<string> {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const { name } of tiers) {
    const trimmed = name.trim();
    if (seen.has(trimmed)) repeated.add(trimmed);
    seen.add(trimmed);
  }
  return repeated;
}

const PENALTY_FIELDS = ['afterViolations', 'blockMs', 'escalation', 'maxBlockMs', 'forgetAfterMs'];

/**
 * The editor's field for a server issue's dotted path (`penalty.blockMs`, `overrides.2.limit`,
 * `tiers.pro.limit`: a tier is found by its name among the editor's).
 */
export function formFieldOf(path: string, values?: PolicyFormValues): string | undefined {
  const [head, second, third] = path.split('.');
  if (head === 'tiers') {
    const index = values?.tiers.findIndex((tier) => tier.name.trim() === second) ?? -1;
    if (index < 0) return undefined;
    const field = third === 'limit' || third === 'burst' || third === 'maxDelayMs' ? third : 'name';
    return `tiers.${index}.${field}`;
  }
  if (head === 'penalty' && second !== undefined && PENALTY_FIELDS.includes(second)) return second;
  if (head === 'penalty') return 'afterViolations';
  if (head === 'calendar') {
    return second === 'timeZone' || second === 'anchorDay' ? second : 'calendarUnit';
  }
  if (head === 'match') return 'userAgent';
  if (head === 'usage') {
    return second === 'header'
      ? 'usageHeader'
      : second === 'onFailure'
        ? 'usageOnFailure'
        : 'usageMaxCost';
  }
  if (head === 'overrides' && second !== undefined && /^\d+$/.test(second)) {
    const field = third === 'unlimited' ? 'kind' : (third ?? 'identifier');
    return `overrides.${second}.${field}`;
  }
  if (head !== undefined && head in NEW_POLICY && head !== 'overrides' && head !== 'tiers') {
    return head;
  }
  return undefined;
}

const DAY_MS = 86_400_000;
const NOMINAL_PERIOD_MS: Record<CalendarUnit, number> = {
  day: DAY_MS,
  week: 7 * DAY_MS,
  month: 30 * DAY_MS,
  year: 365 * DAY_MS,
};

/** The editor's current values as the simulator takes them; unreadable numbers count as unset. */
export function toSimulatedPolicy(
  values: PolicyFormValues,
  tierName?: string,
): SimulatedPolicy | string {
  const positive = (value: string) => {
    const parsed = Number(value);
    return value.trim() !== '' && Number.isInteger(parsed) && parsed > 0 ? parsed : undefined;
  };
  const positiveMs = (value: string) => {
    const parsed = parseDuration(value);
    return parsed !== undefined && parsed > 0 ? parsed : undefined;
  };
  const tier =
    tierName === undefined ? undefined : values.tiers.find((each) => each.name.trim() === tierName);
  const limit = positive(tier === undefined ? values.limit : tier.limit);
  // A calendar period is simulated as its usual length: the simulator has no calendar.
  const periodMs =
    algorithmFields(values.algorithm).calendar && values.calendarUnit !== ''
      ? NOMINAL_PERIOD_MS[values.calendarUnit]
      : positiveMs(values.periodMs);
  if (limit === undefined) {
    return tier === undefined
      ? 'Enter a whole number for Limit to simulate'
      : `Enter a whole number for tier ${tierName}'s limit to simulate it`;
  }
  if (periodMs === undefined) return 'Enter a duration for the window, such as 1 min, to simulate';
  const fields = algorithmFields(values.algorithm);
  const afterViolations = positive(values.afterViolations);
  const blockMs = positiveMs(values.blockMs);
  return {
    algorithm: values.algorithm,
    limit,
    periodMs,
    burst: fields.burst ? (positive((tier ?? values).burst) ?? null) : null,
    segments: fields.segments ? (positive(values.segments) ?? null) : null,
    maxDelayMs: fields.maxDelayMs ? (parseDuration((tier ?? values).maxDelayMs) ?? null) : null,
    cost: positive(values.cost) ?? 1,
    mode: values.mode,
    penalty:
      values.penaltyOn && afterViolations !== undefined && blockMs !== undefined
        ? {
            afterViolations,
            blockMs,
            escalation: Number(values.escalation) || undefined,
            maxBlockMs: positiveMs(values.maxBlockMs),
            forgetAfterMs: positiveMs(values.forgetAfterMs),
          }
        : null,
  };
}

/** The rule a replay runs, from the form: its rate, and each named tier's. */
export function toReplayRule(values: PolicyFormValues): ReplayRule | string {
  const base = toSimulatedPolicy(values);
  if (typeof base === 'string') return base.replace(/simulate/g, 'replay');
  if (values.algorithm === 'concurrency') return 'A concurrency policy has no rate to replay';
  const tiers: NonNullable<ReplayRule['tiers']> = {};
  for (const tier of values.tiers) {
    const name = tier.name.trim();
    if (name === '') continue;
    const rate = toSimulatedPolicy(values, name);
    if (typeof rate === 'string') return rate.replace(/simulate/g, 'replay');
    tiers[name] = { limit: rate.limit, burst: rate.burst ?? null };
  }
  // A calendar quota is replayed in its periods, not in the usual length the simulator uses.
  const calendar = calendarOf(values);
  return {
    algorithm: base.algorithm as NonNullable<ReplayRule['algorithm']>,
    limit: base.limit,
    ...(calendar === null ? { periodMs: base.periodMs } : { calendar }),
    burst: base.burst ?? null,
    segments: base.segments ?? null,
    maxDelayMs: base.maxDelayMs ?? null,
    ...(values.tiers.length === 0 ? {} : { tiers }),
  };
}
