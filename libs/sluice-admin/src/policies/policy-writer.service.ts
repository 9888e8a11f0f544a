import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import {
  parsePolicy,
  PolicyBus,
  PolicyRegistry,
  PolicyValidationError,
  RouteRegistry,
  TrackerResolver,
  type Policy,
} from '@sluice/nest/internals';
import type { EntityManager } from 'typeorm';
import type { Actor } from '../common/actor.js';
import { InvalidRequestException } from '../common/invalid-request.exception.js';
import { PolicyConflictException, staleVersion } from '../common/policy-conflict.exception.js';
import { countsResetBy } from './counts-reset.js';
import { PolicyRevisionEntity } from '../database/policy-revision.entity.js';
import { assertMayChange } from './operator-scope.js';
import {
  assertWritablePolicyName,
  parsePolicyWrite,
  toChangeNote,
  type ChangeNoteBody,
} from './policy-body.schema.js';
import { findPolicyRow, writePolicyChange } from './policy-change.js';
import { PolicyCommits } from './policy-commits.service.js';
import { changedRuleFields, stamped } from './policy-rules.js';
import { describeRoute } from './policy.view.js';

export interface PolicyPut {
  created: boolean;
  policy: Policy;
}

export interface PolicyRemoval {
  version: number;
  /** The code default the policy returned to; null when the row was deleted. */
  policy: Policy | null;
}

function notFound(name: string): NotFoundException {
  return new NotFoundException({
    statusCode: 404,
    error: 'Not Found',
    message: `No policy named "${name}" is stored`,
  });
}

/** Creates, replaces, deletes and restores policies: each one transaction, then published. */
@Injectable()
export class PolicyWriter {
  constructor(
    @Inject(PolicyCommits) private readonly commits: PolicyCommits,
    @Inject(PolicyBus) private readonly bus: PolicyBus,
    @Inject(RouteRegistry) private readonly routes: RouteRegistry,
    @Inject(TrackerResolver) private readonly trackers: TrackerResolver,
    @Inject(PolicyRegistry) private readonly registry: PolicyRegistry,
  ) {}

  /** `confirmed`: the writer said they mean a change that resets counts (countsResetBy). */
  put(name: string, body: unknown, actor: Actor, confirmed = false): Promise<PolicyPut> {
    const request = parsePolicyWrite(name, body, (key) => this.trackers.knows(key));
    return this.commit(name, actor, async (manager, version) => {
      const row = await findPolicyRow(manager, name);
      const currentVersion = row?.version ?? 0;
      if (request.expectedVersion !== currentVersion) {
        throw staleVersion(`Policy "${name}"`, request.expectedVersion, currentVersion);
      }
      assertMayChange(actor, row?.body ?? null, request.policy);
      // A code policy never edited is in force without a row.
      const inForce = row?.body ?? this.registry.get(name) ?? null;
      const resets = countsResetBy(inForce, request.policy);
      if (resets !== undefined && !confirmed) {
        throw new InvalidRequestException([
          {
            field: 'confirm',
            message: `${upperFirst(resets)}. Save with confirm=reset if you mean it.`,
          },
        ]);
      }
      const after = stamped(request.policy, 'admin', version, actor);
      await writePolicyChange(manager, {
        name,
        action: row === null ? 'policy.create' : 'policy.replace',
        before: row?.body ?? null,
        after,
        actor,
        comment: request.comment,
        version,
      });
      return { created: row === null, policy: after };
    });
  }

  /**
   * An edited code policy returns to its code default; a policy without one is deleted unless a
   * route still names it (it would fail that route's next start).
   */
  remove(name: string, body: ChangeNoteBody, actor: Actor): Promise<PolicyRemoval> {
    assertWritablePolicyName(name);
    const note = toChangeNote(body);
    return this.commit(name, actor, async (manager, version) => {
      const row = await findPolicyRow(manager, name);
      if (row === null) throw notFound(name);
      if (note.expectedVersion !== undefined && note.expectedVersion !== row.version) {
        throw staleVersion(`Policy "${name}"`, note.expectedVersion, row.version);
      }
      const codeDefault = this.bus.codeDefaults().find((policy) => policy.name === name);
      if (codeDefault !== undefined) {
        if (row.source === 'code' && changedRuleFields(row.body, codeDefault).length === 0) {
          throw new PolicyConflictException(
            `Policy "${name}" is already at its code default; there is nothing to delete`,
            row.version,
          );
        }
        const after = stamped(codeDefault, 'code', version, actor);
        await writePolicyChange(manager, {
          name,
          action: 'policy.revert',
          before: row.body,
          after,
          actor,
          comment: note.comment,
          version,
        });
        return { version, policy: after };
      }
      const users = this.routes.usedBy(name);
      if (users.length > 0) {
        throw new PolicyConflictException(
          `Policy "${name}" is still used by ${users.map(describeRoute).join(', ')} and has no code default; take it off those routes first`,
          row.version,
          { routes: users.map(describeRoute) },
        );
      }
      await writePolicyChange(manager, {
        name,
        action: 'policy.delete',
        before: row.body,
        after: null,
        actor,
        comment: note.comment,
        version,
      });
      return { version, policy: null };
    });
  }

  /** Writes a new version holding an earlier revision's body. */
  restore(name: string, revision: number, body: ChangeNoteBody, actor: Actor): Promise<Policy> {
    assertWritablePolicyName(name);
    const note = toChangeNote(body);
    return this.commit(name, actor, async (manager, version) => {
      const source = await manager.findOneBy(PolicyRevisionEntity, {
        policyName: name,
        version: revision,
      });
      if (source === null) {
        throw new NotFoundException({
          statusCode: 404,
          error: 'Not Found',
          message: `Policy "${name}" has no revision ${revision}`,
        });
      }
      if (source.body === null) {
        throw new InvalidRequestException([
          {
            field: 'v',
            message: `revision ${revision} records a delete; there is nothing to restore`,
          },
        ]);
      }
      const row = await findPolicyRow(manager, name);
      const currentVersion = row?.version ?? 0;
      if (note.expectedVersion !== undefined && note.expectedVersion !== currentVersion) {
        throw staleVersion(`Policy "${name}"`, note.expectedVersion, currentVersion);
      }
      const after = stamped(this.revived(source.body, revision), 'admin', version, actor);
      await writePolicyChange(manager, {
        name,
        action: 'policy.restore',
        before: row?.body ?? null,
        after,
        actor,
        comment: note.comment ?? `restored revision ${revision}`,
        version,
      });
      return after;
    });
  }

  /** A revision's body, checked again: the rules or the trackers may have changed since. */
  private revived(body: Policy, revision: number): Policy {
    const policy = revivedPolicy(body, revision);
    if (!this.trackers.knows(policy.key)) {
      throw new InvalidRequestException([
        {
          field: 'key',
          message: `counts by the tracker "${policy.key}", which this application no longer registers (revision ${revision})`,
        },
      ]);
    }
    return policy;
  }

  private commit<T>(
    name: string,
    actor: Actor,
    work: (manager: EntityManager, version: number) => Promise<T>,
  ): Promise<T> {
    return this.commits.commit(actor, { changed: name }, work);
  }
}

/** Validation may have tightened since the revision was written. */
function revivedPolicy(body: Policy, revision: number): Policy {
  try {
    return parsePolicy({ ...body, source: 'admin' });
  } catch (error) {
    if (!(error instanceof PolicyValidationError)) throw error;
    throw new InvalidRequestException(
      error.issues.map((issue) => ({
        field: issue.field,
        message: `${issue.message} (revision ${revision} no longer passes validation)`,
      })),
    );
  }
}

function upperFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
