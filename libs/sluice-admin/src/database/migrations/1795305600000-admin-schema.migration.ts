import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Policies, their revisions, the append-only admin audit, penalties, and the version row. */
export class AdminSchema1795305600000 implements MigrationInterface {
  name = 'AdminSchema1795305600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE sluice_setting (
        id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
        version bigint NOT NULL DEFAULT 0,
        enforcement boolean NOT NULL DEFAULT true,
        updated_at timestamptz NOT NULL DEFAULT now(),
        updated_by text
      )`);
    await queryRunner.query(`INSERT INTO sluice_setting (id) VALUES (1)`);
    await queryRunner.query(`
      CREATE TABLE sluice_policy (
        name varchar(64) PRIMARY KEY,
        body json NOT NULL,
        source varchar(8) NOT NULL CHECK (source IN ('code', 'admin')),
        version bigint NOT NULL,
        updated_at timestamptz NOT NULL,
        updated_by text
      )`);
    await queryRunner.query(`
      CREATE TABLE sluice_policy_revision (
        id bigserial PRIMARY KEY,
        policy_name varchar(64) NOT NULL,
        version bigint NOT NULL,
        action varchar(32) NOT NULL,
        body json,
        actor text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        comment varchar(500),
        UNIQUE (policy_name, version)
      )`);
    await queryRunner.query(`
      CREATE TABLE sluice_admin_audit (
        id bigserial PRIMARY KEY,
        occurred_at timestamptz NOT NULL DEFAULT now(),
        actor text NOT NULL,
        ip text,
        user_agent text,
        action varchar(64) NOT NULL,
        target text NOT NULL,
        before json,
        after json,
        comment varchar(500),
        version bigint NOT NULL
      )`);
    await queryRunner.query(
      `CREATE INDEX sluice_admin_audit_actor ON sluice_admin_audit (actor, id)`,
    );
    await queryRunner.query(
      `CREATE INDEX sluice_admin_audit_action ON sluice_admin_audit (action, id)`,
    );
    await queryRunner.query(
      `CREATE INDEX sluice_admin_audit_occurred ON sluice_admin_audit (occurred_at)`,
    );
    await queryRunner.query(`
      CREATE FUNCTION sluice_admin_audit_refuse_change() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'sluice_admin_audit is append-only: % refused', TG_OP;
      END
      $$`);
    await queryRunner.query(`
      CREATE TRIGGER sluice_admin_audit_append_only
      BEFORE UPDATE OR DELETE ON sluice_admin_audit
      FOR EACH ROW EXECUTE FUNCTION sluice_admin_audit_refuse_change()`);
    await queryRunner.query(`
      CREATE TRIGGER sluice_admin_audit_no_truncate
      BEFORE TRUNCATE ON sluice_admin_audit
      FOR EACH STATEMENT EXECUTE FUNCTION sluice_admin_audit_refuse_change()`);
    await queryRunner.query(`
      CREATE TABLE sluice_penalty (
        id bigserial PRIMARY KEY,
        event_id text NOT NULL UNIQUE,
        policy varchar(64) NOT NULL,
        policy_version bigint NOT NULL,
        key_kind varchar(80) NOT NULL,
        identifier varchar(256) NOT NULL,
        offence_level integer NOT NULL,
        "trigger" json,
        started_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        source varchar(8) NOT NULL CHECK (source IN ('auto', 'manual')),
        created_by text,
        reason varchar(500),
        lifted_at timestamptz,
        lifted_by text,
        lift_reason varchar(500),
        instance_id text,
        route text
      )`);
    await queryRunner.query(
      `CREATE INDEX sluice_penalty_identifier ON sluice_penalty (identifier, started_at)`,
    );
    await queryRunner.query(
      `CREATE INDEX sluice_penalty_policy ON sluice_penalty (policy, started_at)`,
    );
    await queryRunner.query(`CREATE INDEX sluice_penalty_started ON sluice_penalty (started_at)`);
    // Blocks not lifted by hand: the live list, and the rows a later block of the same key ends.
    await queryRunner.query(
      `CREATE INDEX sluice_penalty_open ON sluice_penalty (policy, key_kind, identifier, started_at) WHERE lifted_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX sluice_penalty_open_expiry ON sluice_penalty (expires_at) WHERE lifted_at IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE sluice_penalty`);
    await queryRunner.query(`DROP TABLE sluice_admin_audit`);
    await queryRunner.query(`DROP FUNCTION sluice_admin_audit_refuse_change()`);
    await queryRunner.query(`DROP TABLE sluice_policy_revision`);
    await queryRunner.query(`DROP TABLE sluice_policy`);
    await queryRunner.query(`DROP TABLE sluice_setting`);
  }
}
