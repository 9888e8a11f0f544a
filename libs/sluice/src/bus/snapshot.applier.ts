import type { Logger } from '@nestjs/common';
import type { SluiceEngine } from '../engine/sluice.engine.js';
import { parsePolicy } from '../policy/policy.schema.js';
import type { Policy } from '../policy/policy.types.js';
import type { TrackerResolver } from '../trackers/tracker.resolver.js';
import type { PolicySnapshot } from './policy-snapshot.js';

/**
 * Puts a published snapshot into the engine: only versions newer than the applied one, only
 * whole (one invalid policy keeps the last good set), and always over the code defaults, which
 * a snapshot overrides by name but never removes.
 */
export class SnapshotApplier {
  private readonly codePolicies = new Map<string, Policy>();
  private appliedVersion = 0;
  private rejectedVersion = 0;
  private rejection: string | null = null;

  constructor(
    private readonly engine: SluiceEngine,
    private readonly trackers: TrackerResolver,
    private readonly logger: Logger,
  ) {
    for (const policy of engine.policies.all()) this.codePolicies.set(policy.name, policy);
  }

  /** The applied snapshot's version; 0 while only code defaults apply. */
  get version(): number {
    return this.appliedVersion;
  }

  /** Why the last snapshot was refused, or null when the last one offered was applied. */
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

  /** Applies a snapshot newer than the current one; false when it is older, the same or invalid. */
  apply(snapshot: PolicySnapshot): boolean {
    if (snapshot.version <= this.appliedVersion || snapshot.version === this.rejectedVersion) {
      return false;
    }
    const stored: Policy[] = [];
    const problems: string[] = [];
    for (const input of snapshot.policies) {
      try {
        const policy = parsePolicy(input);
        if (!this.trackers.knows(policy.key)) {
          problems.push(
            `policy "${policy.name}" counts by tracker "${policy.key}", not registered here`,
          );
        } else stored.push(policy);
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
    if (problems.length > 0) {
      this.rejectedVersion = snapshot.version;
      this.rejection = `snapshot v${snapshot.version} not applied, the last good set stays: ${problems.join('; ')}`;
      this.logger.error(`Sluice: ${this.rejection}`);
      return false;
    }
    const effective = new Map(this.codePolicies);
    for (const policy of stored) effective.set(policy.name, policy);
    this.engine.policies.replaceAll([...effective.values()], snapshot.enforcement);
    this.appliedVersion = snapshot.version;
    this.rejection = null;
    return true;
  }
}
