import type { AlgorithmName } from '../algorithms/algorithm.types.js';

export type PolicyMode = 'enforce' | 'shadow' | 'off';
export type StoreErrorMode = 'allow' | 'deny' | 'local';
export type Consistency = 'exact' | 'eventual';

export interface PenaltyOptions {
  afterViolations: number;
  blockMs: number;
  /** Each further offence multiplies the block by this. Default 1. */
  escalation?: number;
  /** Default: one day, or blockMs when longer. */
  maxBlockMs?: number;
  /** Offences are forgotten this long after the last block ends. Default seven days. */
  forgetAfterMs?: number;
}

export interface PolicyOverride {
  identifier: string;
  /**
   * 0 denies the identifier outright. Null or absent: no limit of its own, as a policy read back
   * states an unlimited override.
   */
  limit?: number | null;
  unlimited?: boolean;
  /** ISO 8601 time or epoch ms; null or absent: never. */
  expiresAt?: string | number | null;
}

/** A policy as code or an operator writes it (docs/guide.md, policies). */
export interface PolicyInput {
  name: string;
  algorithm: AlgorithmName;
  limit: number;
  periodMs: number;
  burst?: number | null;
  segments?: number | null;
  maxDelayMs?: number | null;
  cost?: number;
  key?: string;
  match?: { userAgent?: string } | null;
  count?: 'all' | 'failures';
  penalty?: PenaltyOptions | null;
  mode?: PolicyMode;
  onStoreError?: StoreErrorMode;
  /**
   * 'exact' (default): every request is decided in Redis. 'eventual': each instance decides from
   * its own view and sends its hits every syncMs (docs/algorithms.md, eventual consistency).
   */
  consistency?: Consistency;
  /** How often an instance sends the hits of an eventual policy, ms. Default 50. */
  syncMs?: number;
  overrides?: PolicyOverride[];
  description?: string | null;
  version?: number;
  source?: 'code' | 'admin';
  updatedAt?: string | null;
  updatedBy?: string | null;
  /** A proposed revision, decided beside this one without ever refusing a request. */
  candidate?: PolicyCandidateInput | null;
}

/** The rules of a proposed revision: a policy as PUT /policies takes it, without its name. */
export type CandidateRulesInput = Omit<
  PolicyInput,
  'name' | 'version' | 'source' | 'updatedAt' | 'updatedBy' | 'candidate'
>;

/** A shadow candidate as the policy snapshot carries it (docs/architecture.md). */
export interface PolicyCandidateInput {
  rules: CandidateRulesInput;
  /** Epoch ms: from then on it is no longer decided. */
  expiresAt: number;
  proposedBy: string | null;
  /** ISO 8601. */
  proposedAt: string;
  /** The policy's version it was proposed against. */
  baseVersion: number;
  /**
   * The share of identifiers, 1 to 100 percent, the candidate is decided for (100 when absent);
   * docs/architecture.md, "Shadow candidates", says why a sample.
   */
  samplePercent?: number;
}

/** A validated candidate: its rules as a policy of the same name, with defaults filled in. */
export interface PolicyCandidate {
  policy: Policy;
  expiresAt: number;
  proposedBy: string | null;
  proposedAt: string;
  baseVersion: number;
  samplePercent: number;
}

/** A validated policy with every default filled in. */
export interface Policy {
  name: string;
  algorithm: AlgorithmName;
  limit: number;
  periodMs: number;
  burst: number | null;
  segments: number | null;
  maxDelayMs: number | null;
  cost: number;
  key: string;
  match: { userAgent: string } | null;
  count: 'all' | 'failures';
  penalty: Required<PenaltyOptions> | null;
  mode: PolicyMode;
  onStoreError: StoreErrorMode;
  consistency: Consistency;
  syncMs: number;
  overrides: Array<{
    identifier: string;
    limit: number | null;
    unlimited: boolean;
    /** epoch ms, or null: never */
    expiresAt: number | null;
  }>;
  description: string | null;
  version: number;
  source: 'code' | 'admin';
  updatedAt: string | null;
  updatedBy: string | null;
  /** The proposed revision decided beside it, or null; never set on a candidate's own policy. */
  candidate: PolicyCandidate | null;
}
