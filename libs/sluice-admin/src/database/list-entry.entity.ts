import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One allow or deny list entry (docs/guide.md, allow and deny lists), published in the snapshot. */
@Entity({ name: 'sluice_list_entry' })
export class ListEntryEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  /** 'allow' or 'deny'. */
  @Column({ type: 'varchar', length: 5 })
  list!: 'allow' | 'deny';

  /** 'address', 'userAgent' or 'identifier'. */
  @Column({ type: 'varchar', length: 10 })
  kind!: 'address' | 'userAgent' | 'identifier';

  @Column({ type: 'text' })
  value!: string;

  @Column({ name: 'key_kind', type: 'varchar', length: 72, nullable: true })
  keyKind!: string | null;

  @Column({ type: 'boolean' })
  prefix!: boolean;

  /** The policies it applies to; null: every policy. */
  @Column({ type: 'json', nullable: true })
  policies!: string[] | null;

  /** 'enforce' or 'shadow'. */
  @Column({ type: 'varchar', length: 7 })
  mode!: 'enforce' | 'shadow';

  @Column({ type: 'text' })
  reason!: string;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ name: 'created_by', type: 'text' })
  createdBy!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
