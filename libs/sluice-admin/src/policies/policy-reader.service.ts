import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  epochMs,
  PolicyBus,
  RouteRegistry,
  SLUICE_CLOCK,
  type Clock,
  type Policy,
  type PolicyCandidateInput,
} from '@sluice/nest/internals';
import { DataSource, type EntityManager } from 'typeorm';
import type { AppliedPolicyFile } from '../common/policy-file.types.js';
import { AppliedPolicyFileEntity } from '../database/applied-policy-file.entity.js';
import type { PolicyList, PolicyRevisionList, PolicyView } from '../common/admin-api.types.js';
import { ADMIN_DATA_SOURCE } from '../database/admin.persistence.js';
import { PolicyRevisionEntity } from '../database/policy-revision.entity.js';
import { PolicyCandidateEntity } from '../database/policy-candidate.entity.js';
import { candidateInput, readSnapshot } from '../database/snapshot.reader.js';
import { assertPolicyName } from './policy-body.schema.js';
import { apiPolicy } from './api-policy.js';
import { findPolicyRow } from './policy-change.js';
import { policyView } from './policy.view.js';
import { inTransaction } from '../database/transaction.js';

/** A policy as the snapshot holds it: its candidate in the shape every instance parses. */
interface WithCandidateInput extends Omit<Policy, 'candidate'> {
  candidate?: PolicyCandidateInput | null;
}

/** Stored policies as the API shows them: with their routes and code defaults. */
@Injectable()
export class PolicyReader {
  constructor(
    @InjectDataSource(ADMIN_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(PolicyBus) private readonly bus: PolicyBus,
    @Inject(RouteRegistry) private readonly routes: RouteRegistry,
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
  ) {}

  async list(): Promise<PolicyList> {
    const { snapshot, file } = await inTransaction(
      this.dataSource,
      async (manager) => ({
        snapshot: await readSnapshot(manager, epochMs(this.clock)),
        file: await latestAppliedFile(manager),
      }),
      'REPEATABLE READ',
    );
    const applied = appliedPolicies(file);
    return {
      version: snapshot.version,
      enforcement: snapshot.enforcement,
      // The snapshot carries each policy's candidate as instances read it.
      policies: (snapshot.policies as Array<Policy | WithCandidateInput>).map((policy) =>
        this.viewWith(policy as Policy, (policy as WithCandidateInput).candidate ?? null, applied),
      ),
      file: file === null ? null : appliedFileView(file),
    };
  }

  async get(name: string): Promise<PolicyView> {
    assertPolicyName(name);
    const row = await findPolicyRow(this.dataSource.manager, name);
    if (row === null) {
      throw new NotFoundException({
        statusCode: 404,
        error: 'Not Found',
        message: `No policy named "${name}" is stored`,
      });
    }
    const candidate = await this.dataSource.manager.findOneBy(PolicyCandidateEntity, {
      policyName: name,
    });
    return this.view(row.body, candidate === null ? null : candidateInput(candidate));
  }

  /** Every version, newest first; a deleted policy keeps its history. */
  async revisions(name: string): Promise<PolicyRevisionList> {
    assertPolicyName(name);
    const rows = await this.dataSource.manager.find(PolicyRevisionEntity, {
      where: { policyName: name },
      order: { version: 'DESC' },
    });
    if (rows.length === 0) {
      throw new NotFoundException({
        statusCode: 404,
        error: 'Not Found',
        message: `Policy "${name}" has no revisions`,
      });
    }
    return {
      revisions: rows.map((row) => ({
        version: row.version,
        action: row.action,
        body: row.body === null ? null : apiPolicy(row.body),
        actor: row.actor,
        createdAt: row.createdAt.toISOString(),
        comment: row.comment,
      })),
    };
  }

  /** `candidate`: what is known of the policy's candidate; none after a write replaced it. */
  async view(policy: Policy, candidate: PolicyCandidateInput | null = null): Promise<PolicyView> {
    const file = await latestAppliedFile(this.dataSource.manager);
    return this.viewWith(policy, candidate, appliedPolicies(file));
  }

  private viewWith(
    policy: Policy,
    candidate: PolicyCandidateInput | null,
    applied: ReadonlyMap<string, Policy> | null,
  ): PolicyView {
    const codeDefault = this.bus.codeDefaults().find((each) => each.name === policy.name);
    return policyView(policy, this.routes.usedBy(policy.name), codeDefault, candidate, applied);
  }
}

/** The policy file applied last, or null when none was. */
async function latestAppliedFile(manager: EntityManager): Promise<AppliedPolicyFileEntity | null> {
  const [latest] = await manager.find(AppliedPolicyFileEntity, {
    order: { version: 'DESC' },
    take: 1,
  });
  return latest ?? null;
}

function appliedPolicies(file: AppliedPolicyFileEntity | null): ReadonlyMap<string, Policy> | null {
  return file === null ? null : new Map(Object.entries(file.policies));
}

function appliedFileView(file: AppliedPolicyFileEntity): AppliedPolicyFile {
  return {
    version: file.version,
    appliedBy: file.appliedBy,
    appliedAt: file.appliedAt.toISOString(),
    comment: file.comment,
  };
}
