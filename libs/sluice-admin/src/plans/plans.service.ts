import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  epochMs,
  isOwnPolicy,
  parsePolicy,
  SLUICE_CLOCK,
  type Clock,
  type Policy,
} from '@sluice/nest/internals';
import { DataSource, type EntityManager } from 'typeorm';
import type { Actor } from '../common/actor.js';
import type { PlanAssignmentRequest, PlanView } from '../common/admin-api.types.js';
import { InvalidRequestException } from '../common/invalid-request.exception.js';
import { AdminAuditEntity } from '../database/admin-audit.entity.js';
import { ADMIN_DATA_SOURCE } from '../database/admin.persistence.js';
import { recordAudit } from '../database/audit.recorder.js';
import { PolicyEntity } from '../database/policy.entity.js';
import { assertMayChange } from '../policies/operator-scope.js';
import { writePolicyChange } from '../policies/policy-change.js';
import { PolicyCommits } from '../policies/policy-commits.service.js';
import { stamped } from '../policies/policy-rules.js';
import { overridesWithPlan, ownOverride, type PlanChange } from './plan.assignments.js';

/** Thrown inside the transaction when the plan is already as asked: nothing is written. */
class NothingChanged extends Error {}

/**
 * A customer's plan in one place (docs/operations.md, "Plans"): one tier across every policy that
 * has it, written as each policy's override for the identifier, in one version, audited once.
 */
@Injectable()
export class PlansService {
  constructor(
    @Inject(PolicyCommits) private readonly commits: PolicyCommits,
    @InjectDataSource(ADMIN_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
  ) {}

  async read(identifier: string, keyKind: string | undefined): Promise<PlanView> {
    const rows = await this.dataSource.getRepository(PolicyEntity).find();
    const policies = tiered(rows.map((row) => row.body)).map((policy) => {
      const own = ownOverride(policy, identifier, keyKind);
      return {
        policy: policy.name,
        tier: own?.tier ?? null,
        expiresAt: own?.tier == null || own.expiresAt === null ? null : iso(own.expiresAt),
      };
    });
    const named = new Set(policies.flatMap((each) => (each.tier === null ? [] : [each.tier])));
    const assigned = policies.find((each) => each.tier !== null);
    const last = await this.dataSource.getRepository(AdminAuditEntity).findOne({
      where: [
        { action: 'plan.assign', target: targetOf(identifier, keyKind) },
        { action: 'plan.remove', target: targetOf(identifier, keyKind) },
      ],
      order: { id: 'DESC' },
    });
    return {
      identifier,
      keyKind: keyKind ?? null,
      tier: named.size === 1 ? (assigned?.tier ?? null) : null,
      expiresAt: named.size === 1 ? (assigned?.expiresAt ?? null) : null,
      policies,
      lastChange:
        last === null
          ? null
          : {
              action: last.action,
              actor: last.actor,
              at: last.occurredAt.toISOString(),
              note: last.comment,
            },
    };
  }

  /** Puts the identifier on `request.tier` wherever a policy has it, and on none elsewhere. */
  async assign(
    identifier: string,
    request: PlanAssignmentRequest,
    actor: Actor,
  ): Promise<PlanView> {
    const expiresAt = request.expiresAt == null ? null : Date.parse(request.expiresAt);
    if (expiresAt !== null && expiresAt <= epochMs(this.clock)) {
      throw new InvalidRequestException([{ field: 'expiresAt', message: 'must be in the future' }]);
    }
    const change: PlanChange = {
      identifier,
      keyKind: request.keyKind,
      tier: request.tier,
      expiresAt,
    };
    await this.write(change, actor, request.note ?? null, (policies) => {
      if (
        !policies.some(
          (policy) => policy.tiers !== null && Object.hasOwn(policy.tiers, request.tier),
        )
      ) {
        throw new InvalidRequestException([
          { field: 'tier', message: `no policy has a tier named "${request.tier}"` },
        ]);
      }
    });
    return this.read(identifier, request.keyKind);
  }

  /** Takes the identifier off any tier an override assigns it. */
  async remove(identifier: string, keyKind: string | undefined, actor: Actor): Promise<PlanView> {
    const change: PlanChange = { identifier, keyKind, tier: null, expiresAt: null };
    await this.write(change, actor, null);
    return this.read(identifier, keyKind);
  }

  private async write(
    change: PlanChange,
    actor: Actor,
    note: string | null,
    check?: (policies: Policy[]) => void,
  ): Promise<void> {
    try {
      await this.commits.commit(actor, { changed: null }, async (manager, version) => {
        const rows = await manager.find(PolicyEntity);
        const policies = tiered(rows.map((row) => row.body));
        check?.(policies);
        const moved = await this.rewrite(manager, policies, change, actor, note, version);
        if (moved.length === 0) throw new NothingChanged();
        await recordAudit(manager, {
          actor,
          action: change.tier === null ? 'plan.remove' : 'plan.assign',
          target: targetOf(change.identifier, change.keyKind),
          before: Object.fromEntries(moved.map(([name, before]) => [name, before])),
          after: {
            tier: change.tier,
            expiresAt: change.expiresAt === null ? null : iso(change.expiresAt),
            policies: moved.map(([name]) => name),
          },
          comment: note,
          version,
        });
      });
    } catch (error) {
      if (!(error instanceof NothingChanged)) throw error;
    }
  }

  /** Writes each policy whose overrides change; answers them with the tier each had before. */
  private async rewrite(
    manager: EntityManager,
    policies: Policy[],
    change: PlanChange,
    actor: Actor,
    note: string | null,
    version: number,
  ): Promise<Array<[string, string | null]>> {
    const moved: Array<[string, string | null]> = [];
    for (const before of policies) {
      const overrides = overridesWithPlan(before, change);
      if (overrides === undefined) continue;
      const after = stamped(parsePolicy({ ...before, overrides }), 'admin', version, actor);
      assertMayChange(actor, before, after);
      await writePolicyChange(manager, {
        name: before.name,
        action: 'policy.replace',
        before,
        after,
        actor,
        comment: note,
        version,
        audited: false,
      });
      moved.push([
        before.name,
        ownOverride(before, change.identifier, change.keyKind)?.tier ?? null,
      ]);
    }
    return moved;
  }
}

/** The policies a plan reaches: those with tiers, Sluice's own left out. */
function tiered(policies: Policy[]): Policy[] {
  return policies
    .filter((policy) => policy.tiers !== null && !isOwnPolicy(policy.name))
    .sort((a, b) => a.name.localeCompare(b.name));
}

function targetOf(identifier: string, keyKind: string | undefined): string {
  return keyKind === undefined ? identifier : `${keyKind}:${identifier}`;
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
