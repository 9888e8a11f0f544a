import {
  ConflictException,
  ForbiddenException,
  Inject,
  Injectable,
  NotFoundException,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  epochMs,
  ListHitTally,
  MAX_LIST_ENTRIES,
  PolicyBus,
  SLUICE_CLOCK,
  type Clock,
  type ListHits,
} from '@sluice/nest/internals';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { Actor } from '../common/actor.js';
import type { ListEntryList, ListEntryRemoval, ListEntryView } from '../common/admin-api.types.js';
import { InvalidRequestException } from '../common/invalid-request.exception.js';
import { ADMIN_DATA_SOURCE } from '../database/admin.persistence.js';
import { recordAudit } from '../database/audit.recorder.js';
import { ListEntryEntity } from '../database/list-entry.entity.js';
import { PolicyEntity } from '../database/policy.entity.js';
import { listEntryOf } from '../database/snapshot.reader.js';
import { PolicyCommits } from '../policies/policy-commits.service.js';
import { broadReach } from '../common/broad-entry.check.js';
import type { ListEntryBody, ListModeBody, ListRemovalBody } from './list-body.schema.js';

const NO_HITS = { enforced: 0, shadow: 0 };

/**
 * The allow and deny lists: each change one versioned, audited commit, published in the
 * snapshot so every instance applies it within a second (docs/guide.md, allow and deny lists).
 */
@Injectable()
export class ListsService {
  constructor(
    @InjectDataSource(ADMIN_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(PolicyCommits) private readonly commits: PolicyCommits,
    @Inject(PolicyBus) private readonly bus: PolicyBus,
    @Inject(ListHitTally) private readonly hits: ListHitTally,
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
  ) {}

  async list(): Promise<ListEntryList> {
    const rows = await this.dataSource.manager.find(ListEntryEntity, {
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    // The counts are a convenience: without Redis the entries still show, with none counted.
    const totals = await this.hits.read().catch(() => new Map<string, ListHits>());
    const now = epochMs(this.clock);
    return {
      entries: rows.map((row) => this.view(row, totals.get(row.id) ?? NO_HITS, now)),
      max: MAX_LIST_ENTRIES,
    };
  }

  /**
   * Adds an entry. One that reaches all traffic or denies its writer's own address or User-Agent
   * needs `confirmed`, which only an admin may give.
   */
  async add(body: ListEntryBody, actor: Actor, confirmed = false): Promise<ListEntryView> {
    const now = epochMs(this.clock);
    if (body.expiresAt != null && Date.parse(body.expiresAt) <= now) {
      throw new InvalidRequestException([{ field: 'expiresAt', message: 'must be in the future' }]);
    }
    const reach = broadReach(body, actor);
    if (reach !== undefined && !confirmed) {
      throw new InvalidRequestException([
        {
          field: 'confirm',
          message: `${reach}; an admin who means it adds the entry with confirm=broad`,
        },
      ]);
    }
    if (reach !== undefined && actor.role !== 'admin') {
      throw new ForbiddenException(
        `Only an admin may confirm an entry whose reach is this: ${reach}`,
      );
    }
    const row = await this.commits.commit(actor, { changed: null }, async (manager, version) => {
      // Counted under the version's row lock, so two writers cannot both take the last place;
      // an expired entry is in force nowhere, so it takes no place.
      const count = await manager
        .createQueryBuilder(ListEntryEntity, 'e')
        .where('e.expiresAt IS NULL OR e.expiresAt > :now', { now: new Date(now) })
        .getCount();
      if (count >= MAX_LIST_ENTRIES) {
        throw new ConflictException(
          `The lists hold at most ${MAX_LIST_ENTRIES} entries together; remove one before adding another`,
        );
      }
      await this.assertPolicies(body.policies ?? null, manager);
      const entry = manager.create(ListEntryEntity, {
        id: randomUUID(),
        list: body.list,
        kind: body.kind,
        value: body.value,
        keyKind: body.kind === 'identifier' ? (body.keyKind ?? null) : null,
        prefix: body.prefix ?? false,
        policies: body.policies ?? null,
        mode: body.mode ?? 'enforce',
        reason: body.reason,
        expiresAt: body.expiresAt == null ? null : new Date(body.expiresAt),
        createdBy: actor.name,
        createdAt: new Date(now),
      });
      await manager.insert(ListEntryEntity, entry);
      await recordAudit(manager, {
        actor,
        action: 'list.add',
        target: `${entry.list}:${entry.value}`,
        before: null,
        after: listEntryOf(entry),
        comment: entry.reason,
        version,
      });
      return entry;
    });
    return this.view(row, NO_HITS, now);
  }

  /**
   * Switches an entry between shadow and enforce in place: one versioned, audited change that
   * keeps its id and so its counts. An entry that would enforce all traffic or its writer needs
   * `confirmed`, as when it is added.
   */
  async setMode(
    id: string,
    body: ListModeBody,
    actor: Actor,
    confirmed = false,
  ): Promise<ListEntryView> {
    const now = epochMs(this.clock);
    const current = await this.dataSource.manager.findOneBy(ListEntryEntity, { id: validId(id) });
    if (current === null) throw new NotFoundException(`No list entry has the id ${id}`);
    const totals = await this.hits.read().catch(() => new Map<string, ListHits>());
    if (current.mode === body.mode) return this.view(current, totals.get(id) ?? NO_HITS, now);
    assertReach({ ...listEntryOf(current), mode: body.mode }, actor, confirmed);
    const row = await this.commits.commit(actor, { changed: null }, async (manager, version) => {
      const locked = await manager.findOneBy(ListEntryEntity, { id: current.id });
      if (locked === null) throw new NotFoundException(`No list entry has the id ${id}`);
      const before = listEntryOf(locked);
      locked.mode = body.mode;
      await manager.update(ListEntryEntity, { id: locked.id }, { mode: body.mode });
      await recordAudit(manager, {
        actor,
        action: 'list.mode',
        target: `${locked.list}:${locked.value}`,
        before,
        after: listEntryOf(locked),
        comment: body.comment ?? null,
        version,
      });
      return locked;
    });
    return this.view(row, totals.get(id) ?? NO_HITS, now);
  }

  async remove(id: string, body: ListRemovalBody, actor: Actor): Promise<ListEntryRemoval> {
    const removed = await this.commits.commit(
      actor,
      { changed: null },
      async (manager, version) => {
        const row = await manager.findOneBy(ListEntryEntity, { id: validId(id) });
        if (row === null) throw new NotFoundException(`No list entry has the id ${id}`);
        await manager.delete(ListEntryEntity, { id: row.id });
        await recordAudit(manager, {
          actor,
          action: 'list.remove',
          target: `${row.list}:${row.value}`,
          before: listEntryOf(row),
          after: null,
          comment: body.comment ?? null,
          version,
        });
        return { removed: true as const, version };
      },
    );
    await this.hits.forget(id).catch(() => undefined);
    return removed;
  }

  /** An entry naming policies names ones that exist, stored or defined in code. */
  private async assertPolicies(
    names: string[] | null,
    manager: DataSource['manager'],
  ): Promise<void> {
    if (names === null) return;
    const stored = new Set(
      (await manager.find(PolicyEntity, { select: { name: true } })).map((row) => row.name),
    );
    const known = new Set([...stored, ...this.bus.codeDefaults().map((policy) => policy.name)]);
    const issues = names.flatMap((name, index) =>
      known.has(name)
        ? []
        : [{ field: `policies.${index}`, message: `no policy is named ${name}` }],
    );
    if (issues.length > 0) throw new InvalidRequestException(issues);
  }

  private view(
    row: ListEntryEntity,
    hits: { enforced: number; shadow: number },
    now: number,
  ): ListEntryView {
    return {
      ...listEntryOf(row),
      expired: row.expiresAt !== null && row.expiresAt.getTime() <= now,
      hits,
    };
  }
}

/** A list entry's id is a UUID; anything else names no entry (and must not reach the query). */
function validId(id: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) {
    throw new NotFoundException(`No list entry has the id ${id.slice(0, 64)}`);
  }
  return id;
}

/**
 * An entry that would enforce all traffic or deny its writer is refused (400 naming `confirm`)
 * unless confirmed, and only an admin may confirm it.
 */
function assertReach(
  entry: Pick<ListEntryBody, 'list' | 'kind' | 'value' | 'keyKind' | 'prefix' | 'mode'>,
  actor: Actor,
  confirmed: boolean,
): void {
  const reach = broadReach(entry, actor);
  if (reach === undefined) return;
  if (!confirmed) {
    throw new InvalidRequestException([
      { field: 'confirm', message: `${reach}; an admin who means it sends confirm=broad` },
    ]);
  }
  if (actor.role !== 'admin') {
    throw new ForbiddenException(
      `Only an admin may confirm an entry whose reach is this: ${reach}`,
    );
  }
}
