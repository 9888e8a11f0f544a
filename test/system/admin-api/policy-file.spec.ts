import type { AuditPage, PolicyFileDocument, PolicyList, PolicyView } from '@sluice/admin/api';
import { runSluiceCli } from '@sluice/admin/src/cli/cli.command.js';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { useAdminApp } from './admin.fixture.js';
import { TOKENS } from './app.module.js';

interface Run {
  code: number;
  out: string;
  err: string;
}

describe('policies as code: npx sluice export, diff and apply against a running admin', () => {
  const admin = useAdminApp('express');
  let folder = '';

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'sluice-cli-'));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  const sluice = async (args: string[], token: string = TOKENS.admin): Promise<Run> => {
    const run = { code: 0, out: '', err: '' };
    run.code = await runSluiceCli(args, {
      env: { SLUICE_ADMIN_URL: `${admin.app.url}/sluice`, SLUICE_ADMIN_TOKEN: token },
      cwd: folder,
      out: (text) => (run.out += text),
      err: (text) => (run.err += text),
    });
    return run;
  };
  /** The exit code, and text the command printed on `stream`. */
  const expectRun = (run: Run, code: number, stream: 'out' | 'err', text: string): void => {
    expect(run[stream]).toContain(text);
    expect(run.code).toBe(code);
  };
  const policies = async (): Promise<PolicyList> =>
    (await admin.api<PolicyList>('GET', '/policies', { as: 'viewer' })).body;
  const policy = async (name: string): Promise<PolicyView | undefined> =>
    (await policies()).policies.find((each) => each.name === name);
  const readYaml = async (name: string): Promise<PolicyFileDocument> =>
    parse(await readFile(join(folder, name), 'utf8')) as PolicyFileDocument;
  const writeYaml = (name: string, document: PolicyFileDocument): Promise<void> =>
    writeFile(join(folder, name), stringify(document));

  it('exports every policy as a commented YAML file that diffs clean against the admin', async () => {
    const exported = await sluice(['export', '--out', 'policies.yaml']);
    expectRun(exported, 0, 'err', 'Wrote 2 policies');
    const text = await readFile(join(folder, 'policies.yaml'), 'utf8');
    expect(text).toContain('# used by POST /posts/reply (PostsController.reply)');
    const document = parse(text) as PolicyFileDocument;
    expect(document).toEqual({
      sluice: 1,
      version: (await policies()).version,
      policies: {
        browse: { algorithm: 'fixed-window', limit: 100, periodMs: 60_000, key: 'ip' },
        reply: { algorithm: 'sliding-log', limit: 3, periodMs: 60_000, key: 'header:x-user' },
      },
      lists: [],
    });
    const diff = await sluice(['diff', 'policies.yaml']);
    expectRun(diff, 0, 'out', 'No changes');
  });

  it('shows a change field by field (exit 1), then applies it all in one audited version', async () => {
    const document = await readYaml('policies.yaml');
    document.policies.reply!.limit = 5;
    document.policies.search = { algorithm: 'gcra', limit: 20, periodMs: 1000, key: 'ip' };
    document.lists = [
      { list: 'deny', kind: 'address', value: '203.0.113.0/24', reason: 'scraper' },
    ];
    await writeYaml('edited.yaml', document);
    const before = await policies();

    const diff = await sluice(['diff', 'edited.yaml']);
    expect(diff.code).toBe(1);
    expect(diff.out).toContain('~ policy reply\n    limit: 3 -> 5\n');
    expect(diff.out).toContain('+ policy search\n    algorithm: "gcra"\n');
    expect(diff.out).toContain('+ list deny address 203.0.113.0/24\n');
    expect(diff.out).toContain('3 changes to apply');
    expect((await policies()).version).toBe(before.version);

    const applied = await sluice(['apply', 'edited.yaml', '-m', 'raise reply for the launch']);
    expectRun(applied, 0, 'out', `as version ${before.version + 1}`);
    const after = await policies();
    expect(after.version).toBe(before.version + 1);
    expect(after.file).toMatchObject({ version: before.version + 1, appliedBy: 'alice' });
    expect(after.policies.find((each) => each.name === 'reply')).toMatchObject({
      limit: 5,
      updatedBy: 'alice',
      drift: { fromCode: true, fromFile: 'same' },
    });
    expect(after.policies.find((each) => each.name === 'browse')?.drift).toEqual({
      fromCode: false,
      fromFile: 'same',
    });
    const audit = (await admin.api<AuditPage>('GET', `/audit?limit=10`)).body.entries;
    const ofApply = audit.filter((entry) => entry.version === before.version + 1);
    expect(ofApply.map((entry) => entry.action).sort()).toEqual([
      'list.add',
      'policy-file.apply',
      'policy.create',
      'policy.replace',
    ]);
    expect(ofApply.every((entry) => entry.actor === 'alice')).toBe(true);
    expect(ofApply.find((entry) => entry.action === 'policy.replace')?.comment).toBe(
      'raise reply for the launch',
    );

    const again = await sluice(['apply', 'edited.yaml']);
    expectRun(again, 0, 'out', 'Nothing to change');
    expect((await policies()).version).toBe(before.version + 1);
  });

  it('the limit applied is the one the app enforces', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await fetch(`${admin.app.url}/posts/reply`, {
        method: 'POST',
        headers: { 'x-user': 'file-user' },
      });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
  });

  it('refuses to undo a change made in the panel since the file, unless forced', async () => {
    const reply = (await policy('reply'))!;
    const put = await admin.api('PUT', '/policies/reply', {
      as: 'admin',
      body: { ...reply, limit: 9, version: reply.version },
    });
    expect(put.status).toBe(200);
    expect((await policy('reply'))?.drift.fromFile).toBe('differs');
    const versionBefore = (await policies()).version;

    const refused = await sluice(['apply', 'edited.yaml']);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('1 change since the file');
    expect(refused.err).toMatch(/policy\.replace reply by alice at version \d+/);
    expect((await policies()).version).toBe(versionBefore);
    expect((await policy('reply'))?.limit).toBe(9);

    const forced = await sluice(['apply', 'edited.yaml', '--force']);
    expect(forced.code).toBe(0);
    expect(forced.out).toContain('~ policy reply\n    limit: 9 -> 5');
    expect(forced.out).toContain('Overwrote (--force):');
    expect((await policy('reply'))?.limit).toBe(5);
    const applied = async () =>
      (await admin.api<AuditPage>('GET', '/audit?limit=5')).body.entries.find(
        (entry) => entry.action === 'policy-file.apply',
      );
    expect((await applied())?.after).toMatchObject({ forced: true, overwritten: 1 });

    // A file from another admin, ahead of this one's version, needs --force too: audited so.
    const edited = await readYaml('edited.yaml');
    const fromAhead = {
      ...edited,
      version: 1_000_000,
      policies: { ...edited.policies, reply: { ...edited.policies.reply!, limit: 6 } },
    };
    await writeYaml('ahead.yaml', fromAhead);
    expect((await sluice(['apply', 'ahead.yaml'])).code).toBe(2);
    expect((await sluice(['apply', 'ahead.yaml', '--force'])).code).toBe(0);
    expect((await applied())?.after).toMatchObject({ forced: true, overwritten: 0 });
  });

  it('names every bad field of a file and writes nothing', async () => {
    const document = await readYaml('edited.yaml');
    document.policies.reply!.limit = -1;
    (document.policies.search as Record<string, unknown>).bogus = true;
    document.lists = [{ list: 'deny', kind: 'address', value: 'not-an-address', reason: 'x' }];
    await writeYaml('bad.yaml', document);
    const versionBefore = (await policies()).version;
    const refused = await sluice(['apply', 'bad.yaml']);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('document.policies.reply.limit');
    expect(refused.err).toContain('document.policies.search');
    expect(refused.err).toContain('document.lists.0.value');
    expect((await policies()).version).toBe(versionBefore);

    // JSON.parse keeps a "__proto__" key as a field: it is named, never dropped.
    await writeFile(
      join(folder, 'proto.json'),
      `{"sluice":1,"version":0,"policies":{"__proto__":{"algorithm":"gcra","limit":1,"periodMs":1000}}}`,
    );
    const proto = await sluice(['diff', 'proto.json']);
    expect(proto.code).toBe(2);
    expect(proto.err).toContain('document.policies.__proto__: is not a policy name');

    await writeFile(join(folder, 'broken.yaml'), 'policies: [unclosed');
    const broken = await sluice(['diff', 'broken.yaml']);
    expectRun(broken, 2, 'err', 'broken.yaml is not valid YAML');
  });

  it('returns a code policy left out to its default and deletes the rest', async () => {
    expect((await sluice(['export', '--out', 'fresh.yaml'])).code).toBe(0);
    const document = await readYaml('fresh.yaml');
    delete document.policies.reply;
    delete document.policies.search;
    document.lists = [];
    await writeYaml('fewer.yaml', document);
    const applied = await sluice(['apply', 'fewer.yaml']);
    expect(applied.code).toBe(0);
    expect(applied.out).toContain('< policy reply (returns to its code default)');
    expect(applied.out).toContain('- policy search (deleted)');
    expect(applied.out).toContain('- list deny address 203.0.113.0/24 (deleted)');
    const after = await policies();
    expect(after.policies.map((each) => each.name)).toEqual(['browse', 'reply']);
    expect(after.policies.find((each) => each.name === 'reply')).toMatchObject({
      limit: 3,
      source: 'code',
      drift: { fromCode: false, fromFile: 'missing' },
    });
  });

  it('carries candidates only when asked, and applies them', async () => {
    const exported = await sluice(['export', '--out', 'with-candidates.json', '--candidates']);
    expect(exported.code).toBe(0);
    const document = JSON.parse(
      await readFile(join(folder, 'with-candidates.json'), 'utf8'),
    ) as PolicyFileDocument;
    expect(document.candidates).toEqual({});
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    document.candidates = {
      browse: {
        rules: { algorithm: 'fixed-window', limit: 50, periodMs: 60_000, key: 'ip' },
        expiresAt,
        samplePercent: 20,
      },
    };
    await writeFile(join(folder, 'with-candidates.json'), JSON.stringify(document));
    const applied = await sluice(['apply', 'with-candidates.json']);
    expect(applied.code).toBe(0);
    expect(applied.out).toContain('+ candidate browse');
    expect((await policy('browse'))?.candidate).toMatchObject({
      samplePercent: 20,
      proposedBy: 'alice',
    });

    const plain = await sluice(['export']);
    expect(plain.out).not.toContain('candidates');
  });

  it('lets a viewer export and diff, not apply; refuses a wrong token', async () => {
    expect((await sluice(['diff', 'fewer.yaml'], TOKENS.viewer)).code).toBe(0);
    const refused = await sluice(['apply', 'fewer.yaml'], TOKENS.viewer);
    expectRun(refused, 2, 'err', '403');
    const wrong = await sluice(['export'], 'not-a-valid-token-0000');
    expectRun(wrong, 2, 'err', 'refused the token');
  });

  it('says which change resets counts, and applies one only with --force', async () => {
    await sluice(['export', '--out', 'now.yaml']);
    const document = await readYaml('now.yaml');
    document.policies.browse = { ...document.policies.browse!, periodMs: 120_000 };
    await writeYaml('longer.yaml', document);

    const diff = await sluice(['diff', 'longer.yaml']);
    expect(diff.out).toContain(
      '~ policy browse\n    periodMs: 60000 -> 120000\n    ! resets the counts: changing windows of 60000 ms to windows of 120000 ms starts a new period for every identifier now',
    );
    const versionBefore = (await policies()).version;
    const refused = await sluice(['apply', 'longer.yaml']);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(
      '1 change would reset counts (browse: changing windows of 60000 ms',
    );
    expect((await policies()).version).toBe(versionBefore);

    expect((await sluice(['apply', 'longer.yaml', '--force'])).code).toBe(0);
    expect((await policy('browse'))?.periodMs).toBe(120_000);
    const entry = (await admin.api<AuditPage>('GET', '/audit?action=policy-file.apply&limit=1'))
      .body.entries[0];
    expect(entry?.after).toMatchObject({ forced: true, resets: ['browse'] });
  });

  it('applies a list entry reaching all traffic only with --force, as the API asks confirm', async () => {
    await sluice(['export', '--out', 'before-broad.yaml']);
    const document = await readYaml('before-broad.yaml');
    document.lists = [
      ...(document.lists ?? []),
      { list: 'deny', kind: 'address', value: '0.0.0.0/0', reason: 'everyone, by mistake' },
    ];
    await writeYaml('broad.yaml', document);
    const versionBefore = (await policies()).version;
    const refused = await sluice(['apply', 'broad.yaml']);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(
      '1 list entry would reach beyond the usual (0.0.0.0/0 holds every address of its family: it would deny all traffic)',
    );
    expect((await policies()).version).toBe(versionBefore);
    expect((await sluice(['apply', 'broad.yaml', '--force'])).code).toBe(0);
    const entry = (await admin.api<AuditPage>('GET', '/audit?action=policy-file.apply&limit=1'))
      .body.entries[0];
    expect(entry?.after).toMatchObject({ forced: true });
    // Taken out again, which needs no confirmation.
    expect((await sluice(['apply', 'before-broad.yaml', '--force'])).code).toBe(0);
  });
});
