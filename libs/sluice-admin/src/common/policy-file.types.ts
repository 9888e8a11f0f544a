import type { CandidateRulesInput, ListEntryInput } from '@sluice/nest/internals';

/**
 * A policy in a policy file: its rules as PUT /policies/:name takes them, without the name (the
 * key it sits under) and the bookkeeping the admin keeps. Fields left out take their defaults.
 */
export type PolicyFileRules = CandidateRulesInput;

/** An allow or deny list entry in a policy file: POST /lists's body. */
export type PolicyFileListEntry = ListEntryInput;

/** A policy's shadow candidate in a policy file (only when exported with candidates). */
export interface PolicyFileCandidate {
  /** The rules it decides beside the live policy. */
  rules: PolicyFileRules;
  /** When it stops being decided, ISO 8601; it must be in the future when applied. */
  expiresAt: string;
  /** The share of identifiers, 1–100 percent, it is decided for; default 5. */
  samplePercent?: number;
}

/**
 * Policies as code (docs/operations.md, "Policies as code"): what `npx sluice export` writes and
 * `diff` and `apply` read, as YAML or JSON. A section left out (`lists`, `candidates`) is not
 * managed by the file: applying it leaves that part of the live state alone.
 */
export interface PolicyFileDocument {
  /** Where editors find the file's JSON Schema; ignored by the admin. */
  $schema?: string;
  /** The file format: 1. */
  sluice: 1;
  /**
   * The admin's global version the file was exported at. Applying refuses (409) when a policy
   * or list was changed other than by an apply after it, unless forced.
   */
  version: number;
  /** Every policy by name; a stored policy missing here is deleted or returns to its code default. */
  policies: Record<string, PolicyFileRules>;
  /** The allow and deny list entries; absent: the lists are not managed by this file. */
  lists?: PolicyFileListEntry[];
  /** Shadow candidates by policy name; absent: candidates are not managed by this file. */
  candidates?: Record<string, PolicyFileCandidate>;
}

/** What the export adds to the document for the comments of a YAML file. */
export interface PolicyFileNotes {
  /** The handlers each policy decides, as "GET /posts (PostsController.list)". */
  routes: Record<string, string[]>;
  /** The policies whose rules differ from the default the app's code gives them. */
  editedFromCode: string[];
  /** When it was exported, ISO 8601. */
  exportedAt: string;
}

/** GET /policy-file: the live policies as a document, and notes for its comments. */
export interface PolicyFileExport {
  /** The file's content. */
  document: PolicyFileDocument;
  /** What the CLI writes as comments in a YAML file. */
  notes: PolicyFileNotes;
}

/** GET /policy-file's query. */
export type PolicyFileQuery = {
  /** 'true': the document carries the shadow candidates too. */
  candidates?: 'true' | 'false';
};

/** One field a change sets: its value now and after applying (null for none). */
export interface PolicyFileFieldChange {
  /** The field, dotted inside a candidate (`rules.limit`). */
  field: string;
  /** Its value now, or null. */
  before: unknown;
  /** Its value once applied, or null. */
  after: unknown;
}

/** One thing applying the file changes. */
export interface PolicyFileChange {
  /** What it is about. */
  kind: 'policy' | 'list' | 'candidate';
  /**
   * 'create', 'update', 'delete'; 'revert' for a policy that returns to its code default.
   */
  action: 'create' | 'update' | 'delete' | 'revert';
  /** The policy's name, or the list entry as "deny address 203.0.113.7". */
  target: string;
  /** The fields it sets, in the file's order; empty for a delete. */
  fields: PolicyFileFieldChange[];
  /**
   * A policy change that starts every identifier's count afresh (another algorithm; a
   * fixed-window's calendar, zone, anchor or period): what it resets. Applying it needs force.
   */
  resets?: string;
}

/** A change made other than by an apply since the file's version: applying would undo it. */
export interface PolicyFileConflict {
  /** The audit action, as "policy.replace". */
  action: string;
  /** The policy's name or the list entry. */
  target: string;
  /** Who made it. */
  actor: string;
  /** The global version it made. */
  version: number;
  /** When, ISO 8601. */
  at: string;
}

/** POST /policy-file/diff: what applying the document would change. */
export interface PolicyFilePlan {
  /** The global version now. */
  version: number;
  /** What applying would change, policies first, then list entries, then candidates. */
  changes: PolicyFileChange[];
  /** Changes since the file's version that applying would overwrite; apply refuses unless forced. */
  conflicts: PolicyFileConflict[];
  /**
   * true when the file's version is ahead of this admin's: it was exported from another admin
   * (another environment), and applying it needs force.
   */
  foreign: boolean;
}

/** POST /policy-file/diff's body. */
export interface PolicyFileDiffRequest {
  /** The file's content, parsed. */
  document: PolicyFileDocument;
}

/** POST /policy-file/apply's body. */
export interface PolicyFileApplyRequest {
  /** The file's content, parsed. */
  document: PolicyFileDocument;
  /** Why, recorded in the audit of every change it makes. */
  comment?: string | null;
  /** true: apply even over changes made since the file's version. */
  force?: boolean;
}

/** POST /policy-file/apply's answer. */
export interface PolicyFileApplyResult {
  /** The global version after applying; unchanged when there was nothing to change. */
  version: number;
  /** What it changed; empty when the admin already held what the file says. */
  changes: PolicyFileChange[];
  /** The conflicts overwritten (only with force). */
  overwritten: PolicyFileConflict[];
}

/** The policy file last applied, as the panel shows it. */
export interface AppliedPolicyFile {
  /** The global version its apply made. */
  version: number;
  /** Who applied it. */
  appliedBy: string;
  /** When, ISO 8601. */
  appliedAt: string;
  /** The note it was applied with, or null. */
  comment: string | null;
}

/** How a policy stands against its code default and the policy file last applied. */
export interface PolicyDrift {
  /** Whether its rules differ from its code default; null when the code gives it none. */
  fromCode: boolean | null;
  /**
   * 'same' as the file last applied, 'differs' from it, or 'missing' from it (added since);
   * null when no file has been applied.
   */
  fromFile: 'same' | 'differs' | 'missing' | null;
}
