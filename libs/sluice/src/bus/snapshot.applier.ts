import type { Logger } from '@nestjs/common';
import type { SluiceEngine } from '../engine/sluice.engine.js';
import { parsePolicy } from '../policy/policy.schema.js';
import type { Policy } from '../policy/policy.types.js';
import type { TrackerResolver } from '../trackers/tracker.resolver.js';
import type { PolicySnapshot } from './policy-snapshot.js';

/**
 * Puts a published snapshot into the engine: only versions newer than the applied one, always
 * over the code defaults, which a snapshot overrides by name but never removes. A policy this
 * instance cannot load (a field of a later release, a tracker its code does not register) keeps
 * its last good definition here, and the error says which; the rest of the snapshot applies, so
 * one such policy never stops an instance taking every later change (docs/operations.md).
 */
export class SnapshotApplier {
  private readonly codePolicies = new Map<string, Policy>();
  private appliedVersion = 0;
  private rejection: string | null = null;

  constructor(
    private readonly engine: SluiceEngine,
    private readonly trackers: TrackerResolver,
    private readonly logger: Logger,
    /** The time, epoch ms: entries expired by then are not applied. */
    private readonly nowMs: () => number = () => 0,
  ) {
    for (const policy of engine.policies.all()) this.codePolicies.set(policy.name, policy);
  }

  /** The applied snapshot's version; 0 while only code defaults apply. */
  get version(): number {
    return this.appliedVersion;
  }

  /** Which policies of the applied snapshot were not loaded, and why; null when all were. */
  get error(): string | null {
    return this.rejection;
  }

  codeDefaults(): Policy[] {
    return [...this.codePolicies.values()];
  }

  addCodeDefault(policy: Policy): void {
    this.codePolicies.set(policy.name, policy);
    if (this.appliedVersion === 0) this.engine.policies.set(policy);
  }

  /** Applies a snapshot newer than the current one; false when it is older or the same. */
  apply(snapshot: PolicySnapshot): boolean {
    if (snapshot.version <= this.appliedVersion) return false;
    const stored: Policy[] = [];
    const kept: Policy[] = [];
    const problems: string[] = [];
    for (const input of snapshot.policies) {
      const problem = this.load(input, stored);
      if (problem === null) continue;
      problems.push(problem);
      const name = nameOf(input);
      const current = name === undefined ? undefined : this.engine.policies.get(name);
      if (current !== undefined) kept.push(current);
    }
    const effective = new Map(this.codePolicies);
    for (const policy of [...kept, ...stored]) effective.set(policy.name, policy);
    this.engine.policies.replaceAll([...effective.values()], snapshot.enforcement);
    const listProblems = this.engine.lists.replace(snapshot.lists ?? [], this.nowMs());
    this.appliedVersion = snapshot.version;
    const rejections = [
      ...(problems.length === 0
        ? []
        : [
            `snapshot v${snapshot.version} applied without ${problems.length === 1 ? 'a policy' : `${problems.length} policies`} this instance cannot load, whose last good definition stays: ${problems.join('; ')}`,
          ]),
      ...(listProblems.length === 0
        ? []
        : [
            `snapshot v${snapshot.version} applied without list entries this instance cannot load: ${listProblems.join('; ')}`,
          ]),
    ];
    this.rejection = rejections.length === 0 ? null : rejections.join('. ');
    if (this.rejection !== null) this.logger.error(`Sluice: ${this.rejection}`);
    return true;
  }

  /** Parses one policy into `stored`; says why when this instance cannot load it. */
  private load(input: unknown, stored: Policy[]): string | null {
    try {
      const policy = parsePolicy(input);
      if (!this.trackers.knows(policy.key)) {
        return `policy "${policy.name}" counts by tracker "${policy.key}", not registered here`;
      }
      stored.push(policy);
      return null;
    } catch (error) {
      const name = nameOf(input);
      return `${name === undefined ? 'a policy without a name' : `policy "${name}"`}: ${(error as Error).message}`;
    }
  }
}

function nameOf(input: unknown): string | undefined {
  const name = (input as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : undefined;
}
