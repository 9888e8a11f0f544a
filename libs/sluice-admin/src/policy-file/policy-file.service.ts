import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  epochMs,
  ListHitTally,
  PolicyBus,
  RouteRegistry,
  SLUICE_CLOCK,
  TrackerResolver,
  type Clock,
} from '@sluice/nest/internals';
import { DataSource, type EntityManager } from 'typeorm';
import type { Actor } from '../common/actor.js';
import { broadReach } from '../common/broad-entry.check.js';
import { InvalidRequestException } from '../common/invalid-request.exception.js';
import { PolicyConflictException } from '../common/policy-conflict.exception.js';
import type {
  PolicyFileApplyResult,
  PolicyFileExport,
  PolicyFilePlan,
} from '../common/policy-file.types.js';
import { ADMIN_DATA_SOURCE } from '../database/admin.persistence.js';
import { AppliedPolicyFileEntity } from '../database/applied-policy-file.entity.js';
import { recordAudit } from '../database/audit.recorder.js';
import { ListEntryEntity } from '../database/list-entry.entity.js';
import { PolicyCandidateEntity } from '../database/policy-candidate.entity.js';
import { PolicyEntity } from '../database/policy.entity.js';
import { listEntryOf, readSetting } from '../database/snapshot.reader.js';
import { inTransaction } from '../database/transaction.js';
import { RESERVED_POLICY_PREFIX } from '../policies/policy-body.schema.js';
import { PolicyCommits } from '../policies/policy-commits.service.js';
import { describeRoute } from '../policies/policy.view.js';
import type { PolicyFileApplyBody } from './policy-file-body.schema.js';
import { planPolicyFile, describeEntry, type LiveState } from './policy-file.planner.js';
import { candidateFields, compactRules, sameRules } from './policy-file.rules.js';
import { applyWrite } from './policy-file.writes.js';
import { APPLY_ACTION, conflictsSince, recordsSameFile } from './policy-file.history.js';
import {
  parsePolicyFile,
  type FileCandidate,
  type ParsedPolicyFile,
} from './policy-file.schema.js';

export { APPLY_ACTION } from './policy-file.history.js';

/** Rolls back an apply that found nothing to write, bump included. */
class NothingToApply extends Error {
  constructor(readonly version: number) {
    super('nothing to apply');
  }
}

function candidateOf(row: PolicyCandidateEntity): FileCandidate {
  return { policy: row.body, expiresAt: row.expiresAt.getTime(), samplePercent: row.samplePercent };
}

/**
 * Policies as code (docs/operations.md, "Policies as code"): the live policies, lists and
 * candidates as one document, what applying a document would change, and the apply itself as
 * one versioned, audited commit.
 */
@Injectable()
export class PolicyFileService {
  constructor(
    @InjectDataSource(ADMIN_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(PolicyCommits) private readonly commits: PolicyCommits,
    @Inject(PolicyBus) private readonly bus: PolicyBus,
    @Inject(RouteRegistry) private readonly routes: RouteRegistry,
    @Inject(TrackerResolver) private readonly trackers: TrackerResolver,
    @Inject(ListHitTally) private readonly hits: ListHitTally,
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
  ) {}

  /** Everything a file manages, read at one version; candidates only when asked. */
  async export(withCandidates: boolean): Promise<PolicyFileExport> {
    const now = epochMs(this.clock);
    return inTransaction(
      this.dataSource,
      async (manager) => {
        const { version } = await readSetting(manager);
        const live = await this.liveState(manager, now);
        const policies: PolicyFileExport['document']['policies'] = {};
        const routes: Record<string, string[]> = {};
        const editedFromCode: string[] = [];
        for (const [name, { body }] of [...live.policies].sort(([a], [b]) => a.localeCompare(b))) {
          policies[name] = compactRules(body);
          const using = live.routesOf(name);
          if (using.length > 0) routes[name] = using;
          const codeDefault = live.codeDefaults.get(name);
          if (codeDefault !== undefined && !sameRules(codeDefault, body)) editedFromCode.push(name);
        }
        const lists = live.lists
          .map((entry) => ({
            list: entry.list,
            kind: entry.kind,
            value: entry.value,
            ...(entry.keyKind === null ? {} : { keyKind: entry.keyKind }),
            ...(entry.prefix ? { prefix: true } : {}),
            ...(entry.policies === null ? {} : { policies: entry.policies }),
            ...(entry.mode === 'enforce' ? {} : { mode: entry.mode }),
            reason: entry.reason,
            ...(entry.expiresAt === null ? {} : { expiresAt: entry.expiresAt }),
          }))
          .sort((a, b) => describeEntry(a).localeCompare(describeEntry(b)));
        const candidates = withCandidates
          ? Object.fromEntries(
              [...live.candidates]
                .sort(([a], [b]) => a.localeCompare(b))
                .map(([name, candidate]) => [name, candidateFields(candidate)]),
            )
          : undefined;
        return {
          document: {
            sluice: 1 as const,
            version,
            policies,
            lists,
            ...(candidates === undefined ? {} : { candidates }),
          },
          notes: { routes, editedFromCode, exportedAt: new Date(now).toISOString() },
        };
      },
      'REPEATABLE READ',
    );
  }

  /** What applying `document` would change now, and what it would overwrite. */
  async diff(document: unknown): Promise<PolicyFilePlan> {
    const now = epochMs(this.clock);
    const file = this.parse(document, now);
    return inTransaction(
      this.dataSource,
      async (manager) => {
        const { version } = await readSetting(manager);
        const plan = planPolicyFile(file, await this.liveState(manager, now));
        if (plan.refusals.length > 0) throw new InvalidRequestException(plan.refusals);
        return {
          version,
          changes: plan.changes,
          conflicts: await conflictsSince(manager, file),
          foreign: file.version > version,
        };
      },
      'REPEATABLE READ',
    );
  }

  /** Applies `document` in one versioned step: every change, or none. */
  async apply(body: PolicyFileApplyBody, actor: Actor): Promise<PolicyFileApplyResult> {
    const now = epochMs(this.clock);
    const file = this.parse(body.document, now);
    const comment = body.comment ?? null;
    const removed: string[] = [];
    try {
      return await this.commits.commit(actor, { changed: null }, async (manager, version) => {
        const base = version - 1;
        const plan = planPolicyFile(file, await this.liveState(manager, now));
        if (plan.refusals.length > 0) throw new InvalidRequestException(plan.refusals);
        const recorded = await recordsSameFile(manager, file);
        if (plan.changes.length === 0 && recorded) throw new NothingToApply(base);
        if (file.version > base && body.force !== true) {
          throw new PolicyConflictException(
            `The file was exported at version ${file.version}, ahead of this admin's ${base}: it comes from another admin. Check it with "sluice diff", then apply it with --force`,
            base,
          );
        }
        const resets = plan.changes.filter((change) => change.resets !== undefined);
        if (resets.length > 0 && body.force !== true) {
          throw new PolicyConflictException(
            `${resets.length} change${resets.length === 1 ? '' : 's'} would reset counts (${resets.map((change) => `${change.target}: ${change.resets}`).join('; ')}): apply with --force if you mean it`,
            base,
          );
        }
        // An entry reaching all traffic or the admin applying it, as POST /lists asks confirm=broad.
        const broad = plan.writes.flatMap((write) => {
          if (write.type !== 'list.add' && write.type !== 'list.replace') return [];
          const reach = broadReach(write.entry, actor);
          return reach === undefined ? [] : [reach];
        });
        if (broad.length > 0 && body.force !== true) {
          throw new PolicyConflictException(
            `${broad.length} list ${broad.length === 1 ? 'entry' : 'entries'} would reach beyond the usual (${broad.join('; ')}): apply with --force if you mean it`,
            base,
          );
        }
        const conflicts = await conflictsSince(manager, file);
        if (conflicts.length > 0 && body.force !== true) {
          throw new PolicyConflictException(
            `${conflicts.length} change${conflicts.length === 1 ? '' : 's'} since the file's version ${file.version} would be overwritten: export again, or apply with --force`,
            base,
            { conflicts },
          );
        }
        const context = { manager, version, actor, comment, now };
        const versions = new Map([...file.policies.keys()].map((name) => [name, version]));
        for (const write of plan.writes) await applyWrite(write, context, versions);
        removed.push(
          ...plan.writes.flatMap((write) => (write.type === 'list.remove' ? [write.id] : [])),
        );
        await manager.insert(AppliedPolicyFileEntity, {
          version,
          policies: Object.fromEntries(file.policies),
          appliedBy: actor.name,
          appliedAt: new Date(now),
          comment,
        });
        await recordAudit(manager, {
          actor,
          action: APPLY_ACTION,
          target: 'policy-file',
          before: null,
          after: {
            fileVersion: file.version,
            changes: plan.changes.length,
            // Whether --force overrode a refusal: changes it overwrote, or a file from ahead.
            forced:
              conflicts.length > 0 || file.version > base || resets.length > 0 || broad.length > 0,
            overwritten: conflicts.length,
            resets: resets.map((change) => change.target),
          },
          comment,
          version,
        });
        return { version, changes: plan.changes, overwritten: conflicts };
      });
    } catch (error) {
      if (error instanceof NothingToApply) {
        return { version: error.version, changes: [], overwritten: [] };
      }
      throw error;
    } finally {
      // The counts of a removed entry are kept by id: forget them, as DELETE /lists/:id does.
      for (const id of removed) await this.hits.forget(id).catch(() => undefined);
    }
  }

  private parse(document: unknown, now: number): ParsedPolicyFile {
    const parsed = parsePolicyFile(document, now, (key) => this.trackers.knows(key));
    if (parsed.file === null)
      throw new InvalidRequestException(
        parsed.issues.map((issue) => ({
          ...issue,
          field: `document.${issue.field}`.replace(/\.$/, ''),
        })),
      );
    return parsed.file;
  }

  private async liveState(manager: EntityManager, now: number): Promise<LiveState> {
    const rows = await manager.find(PolicyEntity, { order: { name: 'ASC' } });
    const entries = await manager.find(ListEntryEntity, { order: { createdAt: 'ASC', id: 'ASC' } });
    const candidates = await manager.find(PolicyCandidateEntity);
    return {
      policies: new Map(
        rows
          .filter((row) => !row.name.startsWith(RESERVED_POLICY_PREFIX))
          .map((row) => [row.name, { body: row.body, source: row.source, version: row.version }]),
      ),
      lists: entries
        .filter((row) => row.expiresAt === null || row.expiresAt.getTime() > now)
        .map(listEntryOf),
      candidates: new Map(
        candidates
          .filter((row) => row.expiresAt.getTime() > now)
          .map((row) => [row.policyName, candidateOf(row)]),
      ),
      codeDefaults: new Map(
        this.bus
          .codeDefaults()
          .filter((policy) => !policy.name.startsWith(RESERVED_POLICY_PREFIX))
          .map((policy) => [policy.name, policy]),
      ),
      routesOf: (name) => this.routes.usedBy(name).map(describeRoute),
    };
  }
}
