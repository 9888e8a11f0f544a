import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The forum's posts and replies, and the three posts every new forum starts with. */
export class Forum1795430000000 implements MigrationInterface {
  readonly name = 'Forum1795430000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE demo_post (
        id serial PRIMARY KEY,
        author text NOT NULL,
        title text NOT NULL,
        body text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        likes integer NOT NULL DEFAULT 0
      )`);
    await queryRunner.query(`
      CREATE TABLE demo_reply (
        id serial PRIMARY KEY,
        post_id integer NOT NULL REFERENCES demo_post (id) ON DELETE CASCADE,
        author text NOT NULL,
        body text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE INDEX demo_reply_post ON demo_reply (post_id, id)');
    await queryRunner.query(`
      INSERT INTO demo_post (author, title, body) VALUES
        ('Hermione', 'Welcome to the forum', 'Be kind; replies are limited to five a minute.'),
        ('Ron', 'Quidditch results', 'Gryffindor won again.'),
        ('Harry', 'Lost: one invisibility cloak', 'Seen it anywhere?')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE demo_reply');
    await queryRunner.query('DROP TABLE demo_post');
  }
}
