/** The policy set the admin publishes and every instance applies (docs/architecture.md, a policy change). */
export interface PolicySnapshot {
  /** Bumped by every change: a policy, or the enforcement switch. */
  version: number;
  /** The global switch: false lets every guarded request pass without a decision. */
  enforcement: boolean;
  /** The database's policies, as stored; validated by each instance before it applies them. */
  policies: unknown[];
  /** The allow and deny list entries (ListEntry), validated likewise; absent: none. */
  lists?: unknown[];
}

/** Published on `<prefix>:policies` after each commit; a hint to re-read the snapshot. */
export interface ChangeNotice {
  /** The snapshot version the change made. */
  version: number;
  /** The policy that changed; null for the enforcement switch or a full re-publish. */
  name: string | null;
}

/** Published on `<prefix>:policies` when a block is lifted: every instance forgets its copy. */
export interface UnblockNotice {
  /** `key`: the stored key, when the block was lifted by it (an identifier too long to name). */
  unblock: { policy: string; keyKind: string; identifier: string; key?: string };
}

export class SnapshotFormatError extends Error {
  override name = 'SnapshotFormatError';
}

/** Hash fields that are not policies; policy names cannot start with '@'. */
const VERSION_FIELD = '@version';
const ENFORCEMENT_FIELD = '@enforcement';
/** The list entries, as one JSON array: a release without lists skips the field, as any '@' one. */
const LISTS_FIELD = '@lists';

export function encodeSnapshot(snapshot: PolicySnapshot): Record<string, string> {
  const fields: Record<string, string> = {
    [VERSION_FIELD]: String(snapshot.version),
    [ENFORCEMENT_FIELD]: snapshot.enforcement ? 'on' : 'off',
  };
  if (snapshot.lists !== undefined && snapshot.lists.length > 0) {
    fields[LISTS_FIELD] = JSON.stringify(snapshot.lists);
  }
  for (const policy of snapshot.policies) {
    const name = (policy as { name?: unknown }).name;
    if (typeof name !== 'string' || name.startsWith('@')) {
      throw new SnapshotFormatError(`a policy's name must be a string, got ${String(name)}`);
    }
    fields[name] = JSON.stringify(policy);
  }
  return fields;
}

/** The snapshot a hash holds, or null when the hash is empty (nothing published yet). */
export function decodeSnapshot(fields: Record<string, string>): PolicySnapshot | null {
  if (Object.keys(fields).length === 0) return null;
  const version = parseVersion(fields[VERSION_FIELD]);
  if (version === null) {
    throw new SnapshotFormatError(`${VERSION_FIELD} is missing or not a positive integer`);
  }
  const enforcement = fields[ENFORCEMENT_FIELD];
  if (enforcement !== 'on' && enforcement !== 'off') {
    throw new SnapshotFormatError(`${ENFORCEMENT_FIELD} must be 'on' or 'off'`);
  }
  const policies: unknown[] = [];
  for (const [field, text] of Object.entries(fields)) {
    if (field.startsWith('@')) continue;
    try {
      policies.push(JSON.parse(text));
    } catch {
      throw new SnapshotFormatError(`policy ${JSON.stringify(field)} is not valid JSON`);
    }
  }
  const snapshot: PolicySnapshot = { version, enforcement: enforcement === 'on', policies };
  const lists = fields[LISTS_FIELD];
  if (lists !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(lists);
    } catch {
      throw new SnapshotFormatError(`${LISTS_FIELD} is not valid JSON`);
    }
    if (!Array.isArray(parsed)) throw new SnapshotFormatError(`${LISTS_FIELD} must be an array`);
    snapshot.lists = parsed;
  }
  return snapshot;
}

export function parseVersion(text: string | null | undefined): number | null {
  if (text === null || text === undefined || !/^[1-9][0-9]{0,15}$/.test(text)) return null;
  const version = Number(text);
  return Number.isSafeInteger(version) ? version : null;
}

export function parseNotice(message: string): ChangeNotice | null {
  try {
    const notice = JSON.parse(message) as Partial<ChangeNotice>;
    if (!Number.isSafeInteger(notice.version) || (notice.version as number) < 1) return null;
    return { version: notice.version as number, name: notice.name ?? null };
  } catch {
    return null;
  }
}

export function parseUnblockNotice(message: string): UnblockNotice['unblock'] | null {
  try {
    const { unblock } = JSON.parse(message) as Partial<UnblockNotice>;
    if (typeof unblock !== 'object' || unblock === null) return null;
    const { policy, keyKind, identifier, key } = unblock;
    if ([policy, keyKind, identifier].some((field) => typeof field !== 'string')) return null;
    if (key !== undefined && typeof key !== 'string') return null;
    return key === undefined
      ? { policy, keyKind, identifier }
      : { policy, keyKind, identifier, key };
  } catch {
    return null;
  }
}
