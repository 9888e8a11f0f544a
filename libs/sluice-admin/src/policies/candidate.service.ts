import {
  Inject,
  Injectable,
  Logger,
  NotFoundException,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  candidateStatsName,
  PeriodicTask,
  SLUICE_CLOCK,
  type Clock,
  IDENTIFIER_STATS,
  TrackerResolver,
  type IdentifierStatsStore,
  type Policy,
} from '@sluice/nest/internals';
import { DataSource, LessThanOrEqual, type EntityManager } from 'typeorm';
import type { Actor } from '../common/actor.js';
import type { CandidateComparison, CandidateView } from '../common/admin-api.types.js';
import { PolicyConflictException, staleVersion } from '../common/policy-conflict.exception.js';
import { SYSTEM_ACTOR } from '../common/system.actor.js';
import { recordAudit } from '../database/audit.recorder.js';
import { ADMIN_DATA_SOURCE } from '../database/admin.persistence.js';
import { PolicyCandidateEntity } from '../database/policy-candidate.entity.js';
import { proposalParts, type CandidatePromotionBody } from './candidate-body.schema.js';
import { apiPolicy } from './api-policy.js';
import { assertMayChange } from './operator-scope.js';
import { assertPolicyName, parsePolicyWrite, type ChangeNoteBody } from './policy-body.schema.js';
import { findPolicyRow, writePolicyChange } from './policy-change.js';
import { changedRuleFields, stamped } from './policy-rules.js';
import { PolicyCommits } from './policy-commits.service.js';

/** How often expired candidates are looked for: each expiry is audited and published. */
const SWEEP_EVERY_MS = 5_000;
const DIFFERENCES_SHOWN = 50;

function noCandidate(name: string): NotFoundException {
  return new NotFoundException({
    statusCode: 404,
    error: 'Not Found',
    message: `Policy "${name}" has no candidate`,
  });
}

function noPolicy(name: string): NotFoundException {
  return new NotFoundException({
    statusCode: 404,
    error: 'Not Found',
    message: `No policy named "${name}" is stored`,
  });
}

function view(row: PolicyCandidateEntity): CandidateView {
  return {
    policy: row.policyName,
    rules: apiPolicy(row.body),
    baseVersion: row.baseVersion,
    proposedBy: row.proposedBy,
    proposedAt: row.proposedAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    comment: row.comment,
    samplePercent: row.samplePercent,
  };
}

/**
 * Shadow candidates: proposed, compared, discarded, promoted and expired, each one versioned
 * and audited and published like a policy change (docs/architecture.md, "Shadow candidates").
 */
@Injectable()
export class CandidateService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SluiceAdmin');
  private readonly sweeps = new PeriodicTask(() => this.expire(this.now()), SWEEP_EVERY_MS);

  constructor(
    @Inject(PolicyCommits) private readonly commits: PolicyCommits,
    @Inject(TrackerResolver) private readonly trackers: TrackerResolver,
    @Inject(IDENTIFIER_STATS) private readonly identifiers: IdentifierStatsStore,
    @InjectDataSource(ADMIN_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
  ) {}

  /** SluiceModule's clock, as the Date candidates' expiries are compared with. */
  private now(): Date {
    return new Date(Math.floor(this.clock() / 1000));
  }

  onApplicationBootstrap(): void {
    this.sweeps.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.sweeps.stop();
  }

  /** Replaces any candidate the policy has; `version` in the body is the live version read. */
  propose(
    name: string,
    body: unknown,
    actor: Actor,
    now = this.now().getTime(),
  ): Promise<CandidateView> {
    const { policyBody, lifetimeMs, samplePercent } = proposalParts(body);
    const request = parsePolicyWrite(name, policyBody, (key) => this.trackers.knows(key));
    return this.commit(name, actor, async (manager, version) => {
      const row = await findPolicyRow(manager, name);
      if (row === null) throw noPolicy(name);
      if (request.expectedVersion !== row.version) {
        throw staleVersion(`Policy "${name}"`, request.expectedVersion, row.version);
      }
      assertMayChange(actor, row.body, request.policy);
      const before = await manager.findOneBy(PolicyCandidateEntity, { policyName: name });
      // Replacing a candidate removes it: an operator may replace only one they could propose.
      if (before !== null) assertMayChange(actor, row.body, before.body);
      const candidate = manager.create(PolicyCandidateEntity, {
        policyName: name,
        body: request.policy,
        baseVersion: row.version,
        proposedBy: actor.name,
        proposedAt: new Date(now),
        expiresAt: new Date(now + lifetimeMs),
        comment: request.comment,
        samplePercent,
      });
      await manager.save(candidate);
      await recordAudit(manager, {
        actor,
        action: 'candidate.propose',
        target: name,
        before: before === null ? null : view(before),
        after: view(candidate),
        comment: request.comment,
        version,
      });
      return view(candidate);
    });
  }

  async compare(name: string): Promise<CandidateComparison> {
    assertPolicyName(name);
    const manager = this.dataSource.manager;
    const [row, candidate] = await Promise.all([
      findPolicyRow(manager, name),
      manager.findOneBy(PolicyCandidateEntity, { policyName: name }),
    ]);
    if (row === null) throw noPolicy(name);
    if (candidate === null) throw noCandidate(name);
    const differences = (
      await this.identifiers.read(candidateStatsName(name), { limit: DIFFERENCES_SHOWN })
    ).map((count) => ({
      keyKind: count.keyKind,
      identifier: count.identifier,
      candidateRefuses: count.rejected,
      liveRefuses: count.passed,
      lastSeen: new Date(count.lastSeen).toISOString(),
    }));
    return {
      ...view(candidate),
      liveVersion: row.version,
      stale: row.version !== candidate.baseVersion,
      changedFields: changedRuleFields(row.body, candidate.body),
      differences,
    };
  }

  discard(name: string, note: ChangeNoteBody, actor: Actor): Promise<{ discarded: true }> {
    assertPolicyName(name);
    return this.commit(name, actor, async (manager, version) => {
      const candidate = await this.existingCandidate(manager, name);
      const row = await findPolicyRow(manager, name);
      if (row !== null) assertMayChange(actor, row.body, candidate.body);
      await manager.delete(PolicyCandidateEntity, { policyName: name });
      await recordAudit(manager, {
        actor,
        action: 'candidate.discard',
        target: name,
        before: view(candidate),
        after: null,
        comment: note.comment ?? null,
        version,
      });
      return { discarded: true as const };
    });
  }

  /** The candidate becomes the live revision; 409 when the policy changed since, unless confirmed. */
  promote(name: string, body: CandidatePromotionBody, actor: Actor): Promise<Policy> {
    assertPolicyName(name);
    return this.commit(name, actor, async (manager, version) => {
      const candidate = await this.existingCandidate(manager, name);
      const row = await findPolicyRow(manager, name);
      if (row === null) throw noPolicy(name);
      if (row.version !== candidate.baseVersion && body.confirm !== true) {
        throw new PolicyConflictException(
          `Policy "${name}" changed since its candidate was proposed (at version ${candidate.baseVersion}, now ${row.version}); promote with confirm: true to replace the change`,
          row.version,
        );
      }
      assertMayChange(actor, row.body, candidate.body);
      if (!this.trackers.knows(candidate.body.key)) {
        throw new PolicyConflictException(
          `The candidate counts by the tracker "${candidate.body.key}", which this application no longer registers`,
          row.version,
        );
      }
      const after = stamped(candidate.body, 'admin', version, actor);
      await manager.delete(PolicyCandidateEntity, { policyName: name });
      await writePolicyChange(manager, {
        name,
        action: 'policy.promote',
        before: row.body,
        after,
        actor,
        // The proposal's own note says why the change was made; the promotion keeps it.
        comment:
          body.comment ??
          (candidate.comment !== null && candidate.comment !== ''
            ? `${candidate.comment} (promoted the candidate ${candidate.proposedBy ?? 'someone'} proposed)`
            : `promoted the candidate ${candidate.proposedBy ?? 'someone'} proposed`),
        version,
      });
      return after;
    });
  }

  /** Expires the candidates past their time, one audited change for all of them. */
  sweep(now = this.now()): Promise<void> {
    return this.sweeps.run(() => this.expire(now));
  }

  private async expire(now: Date): Promise<void> {
    try {
      const due = await this.dataSource.manager.countBy(PolicyCandidateEntity, {
        expiresAt: LessThanOrEqual(now),
      });
      if (due === 0) return;
      await this.commits.commit(
        SYSTEM_ACTOR,
        { changed: null, publish: (expired: number) => expired > 0 },
        async (manager, version) => {
          const expired = await manager.findBy(PolicyCandidateEntity, {
            expiresAt: LessThanOrEqual(now),
          });
          for (const candidate of expired) {
            await manager.delete(PolicyCandidateEntity, { policyName: candidate.policyName });
            await recordAudit(manager, {
              actor: SYSTEM_ACTOR,
              action: 'candidate.expire',
              target: candidate.policyName,
              before: view(candidate),
              after: null,
              comment: null,
              version,
            });
          }
          return expired.length;
        },
      );
    } catch (error) {
      this.logger.warn(`Expired candidates could not be removed yet: ${String(error)}`);
    }
  }

  private async existingCandidate(
    manager: EntityManager,
    name: string,
  ): Promise<PolicyCandidateEntity> {
    const candidate = await manager.findOneBy(PolicyCandidateEntity, { policyName: name });
    if (candidate === null) throw noCandidate(name);
    return candidate;
  }

  private commit<T>(
    name: string,
    actor: Actor,
    work: (manager: EntityManager, version: number) => Promise<T>,
  ): Promise<T> {
    return this.commits.commit(actor, { changed: name }, work);
  }
}
