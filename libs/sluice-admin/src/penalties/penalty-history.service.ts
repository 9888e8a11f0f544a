import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { SLUICE_CLOCK, epochMs, type Clock } from '@sluice/nest/internals';
import { stringify, type Stringifier } from 'csv-stringify';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { DataSource, type SelectQueryBuilder } from 'typeorm';
import type { PenaltyPage, PenaltyRecord, PenaltyState } from '../common/admin-api.types.js';
import { spreadsheetText } from '../common/spreadsheet-cell.js';
import { ADMIN_DATA_SOURCE } from '../database/admin.persistence.js';
import { PenaltyEntity } from '../database/penalty.entity.js';
import { EXPIRED } from './expiry.sweeper.js';
import type { PenaltyQuery } from './penalty-requests.schema.js';

const DEFAULT_PAGE_SIZE = 50;
/** A CSV export holds at most this many rows, newest first; narrow the filters for older ones. */
export const MAX_CSV_ROWS = 100_000;
const CSV_BATCH = 1_000;

const CSV_COLUMNS: ReadonlyArray<keyof PenaltyRecord> = [
  'id',
  'policy',
  'policyVersion',
  'keyKind',
  'identifier',
  'offence',
  'startedAt',
  'expiresAt',
  'durationMs',
  'source',
  'createdBy',
  'reason',
  'state',
  'liftedAt',
  'liftedBy',
  'liftReason',
  'instanceId',
  'route',
  'trigger',
  // Added last, so spreadsheets built on the earlier columns still read them where they were.
  'key',
];

/** Expired once its end has passed, whether or not the admin has marked it yet. */
function stateOf(row: PenaltyEntity, now: number): PenaltyState {
  if (row.liftReason === EXPIRED) return 'expired';
  if (row.liftedAt !== null) return 'lifted';
  return row.expiresAt.getTime() <= now ? 'expired' : 'active';
}

export function toRecord(row: PenaltyEntity, now: number): PenaltyRecord {
  return {
    id: row.id,
    policy: row.policy,
    policyVersion: row.policyVersion,
    keyKind: row.keyKind,
    identifier: row.identifier,
    key: row.identifierKey,
    offence: row.offenceLevel,
    trigger: row.trigger,
    startedAt: row.startedAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    durationMs: row.expiresAt.getTime() - row.startedAt.getTime(),
    source: row.source,
    createdBy: row.createdBy,
    reason: row.reason,
    state: stateOf(row, now),
    liftedAt: row.liftedAt?.toISOString() ?? null,
    liftedBy: row.liftedBy,
    liftReason: row.liftReason,
    instanceId: row.instanceId,
    route: row.route,
  };
}

/** The penalty history: pages newest first, or every match as CSV. */
@Injectable()
export class PenaltyHistoryService {
  constructor(
    @InjectDataSource(ADMIN_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(SLUICE_CLOCK) private readonly clock: Clock,
  ) {}

  async page(filters: PenaltyQuery): Promise<PenaltyPage> {
    const limit = filters.limit ?? DEFAULT_PAGE_SIZE;
    const rows = await this.select(filters)
      .limit(limit + 1)
      .getMany();
    const page = rows.slice(0, limit);
    const now = epochMs(this.clock);
    const last = page.at(-1);
    return {
      penalties: page.map((row) => toRecord(row, now)),
      nextCursor: rows.length > limit && last !== undefined ? last.id : null,
    };
  }

  /** Validates first, so a bad filter is a 400 rather than a broken download. */
  csv(filters: PenaltyQuery): Readable {
    const csv = stringify({
      header: true,
      columns: CSV_COLUMNS.map((key) => ({ key })),
      // Text that a spreadsheet would run as a formula is neutralised (common/spreadsheet-cell.ts).
      cast: {
        string: (value) => spreadsheetText(value),
        object: (value) => spreadsheetText(JSON.stringify(value)),
      },
    });
    void this.writeRows(filters, csv).catch((error: unknown) => csv.destroy(error as Error));
    return csv;
  }

  private async writeRows(filters: PenaltyQuery, csv: Stringifier): Promise<void> {
    let cursor = filters.cursor;
    let written = 0;
    const now = epochMs(this.clock);
    while (written < MAX_CSV_ROWS) {
      const rows = await this.select({ ...filters, cursor })
        .limit(Math.min(CSV_BATCH, MAX_CSV_ROWS - written))
        .getMany();
      for (const row of rows) {
        if (!csv.write(toRecord(row, now))) await once(csv, 'drain');
      }
      written += rows.length;
      cursor = rows.at(-1)?.id;
      if (rows.length < CSV_BATCH || cursor === undefined) break;
    }
    csv.end();
  }

  private select(filters: PenaltyQuery): SelectQueryBuilder<PenaltyEntity> {
    const select = this.dataSource.manager
      .createQueryBuilder(PenaltyEntity, 'penalty')
      .orderBy('penalty.id', 'DESC');
    const { identifier, q, policy, from, to, cursor } = filters;
    if (identifier !== undefined)
      select.andWhere('penalty.identifier = :identifier', { identifier });
    // strpos, not LIKE: the text is matched as it is, % and _ included.
    if (q !== undefined) select.andWhere('strpos(penalty.identifier, :q) > 0', { q });
    if (policy !== undefined) select.andWhere('penalty.policy = :policy', { policy });
    if (from !== undefined) select.andWhere('penalty.startedAt >= :from', { from });
    if (to !== undefined) select.andWhere('penalty.startedAt < :to', { to });
    if (cursor !== undefined) select.andWhere('penalty.id < :cursor', { cursor });
    return select;
  }
}
