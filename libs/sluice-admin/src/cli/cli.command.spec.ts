import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { apiBase } from './admin-api.client.js';
import { runSluiceCli, USAGE } from './cli.command.js';
import { writePolicyFile } from './policy-file.format.js';

let folder = '';
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'sluice-cli-unit-'));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

async function sluice(args: string[], env: Record<string, string> = {}) {
  const run = { code: 0, out: '', err: '' };
  run.code = await runSluiceCli(args, {
    env,
    cwd: folder,
    out: (text) => (run.out += text),
    err: (text) => (run.err += text),
    fetch: () => Promise.reject(new Error('no admin in a unit test')),
  });
  return run;
}

describe('the sluice command line', () => {
  it('prints its usage on --help (exit 0) and without a command (exit 2)', async () => {
    expect(await sluice(['--help'])).toMatchObject({ code: 0, out: USAGE });
    expect((await sluice([])).code).toBe(2);
  });

  it('names what is missing or wrong before calling the admin', async () => {
    const env = { SLUICE_ADMIN_TOKEN: 'a-token-of-some-length' };
    expect((await sluice(['export'])).err).toContain('--url is needed');
    expect((await sluice(['export'], { SLUICE_ADMIN_URL: 'http://x' })).err).toContain(
      '--token is needed',
    );
    expect((await sluice(['export', '--url', 'ftp://x'], env)).err).toContain('http(s) URL');
    expect((await sluice(['publish', '--url', 'http://x'], env)).err).toContain(
      'Unknown command "publish"',
    );
    expect((await sluice(['diff', '--url', 'http://x'], env)).err).toContain(
      'sluice diff needs the file',
    );
    expect((await sluice(['diff', 'absent.yaml', '--url', 'http://x'], env)).err).toContain(
      'Cannot read absent.yaml: ENOENT',
    );
    const bogus = await sluice(['export', '--bogus']);
    expect(bogus.code).toBe(2);
    expect(bogus.err).toContain("Unknown option '--bogus'");
  });

  it('refuses a YAML file with a duplicated key rather than keep either', async () => {
    await writeFile(join(folder, 'twice.yaml'), 'policies:\n  a: {}\n  a: {}\n');
    const run = await sluice(['diff', 'twice.yaml', '--url', 'http://x', '--token', 'a-token-xx']);
    expect(run.code).toBe(2);
    expect(run.err).toContain('twice.yaml is not valid YAML');
  });

  it('says so when the admin cannot be reached', async () => {
    const run = await sluice([
      'export',
      '--url',
      'http://127.0.0.1:9/sluice',
      '--token',
      'x'.repeat(16),
    ]);
    expect(run).toMatchObject({ code: 2 });
    expect(run.err).toContain('Could not reach the admin at http://127.0.0.1:9/sluice/api');
  });

  it('takes the panel address or the API address alike', () => {
    expect(apiBase('https://app.example.com/sluice')).toBe('https://app.example.com/sluice/api');
    expect(apiBase('https://app.example.com/sluice/api/')).toBe(
      'https://app.example.com/sluice/api',
    );
  });
});

describe('a written policy file', () => {
  const exported = {
    document: {
      sluice: 1 as const,
      version: 7,
      policies: { reply: { algorithm: 'gcra' as const, limit: 5, periodMs: 1000 } },
      lists: [],
    },
    notes: {
      routes: { reply: ['POST /posts/reply (PostsController.reply)'] },
      editedFromCode: ['reply'],
      exportedAt: '2026-11-28T10:00:00.000Z',
    },
  };

  it('is YAML with comments that parses back to the document', async () => {
    const text = writePolicyFile(exported, 'yaml', { url: 'http://x/sluice', schema: './s.json' });
    expect(text).toContain('# used by POST /posts/reply (PostsController.reply)');
    expect(text).toContain('# edited: differs from its code default');
    expect(text).toContain('# yaml-language-server: $schema=./s.json');
    expect(parse(text)).toEqual(exported.document);
    await writeFile(join(folder, 'written.yaml'), text);
    expect(parse(await readFile(join(folder, 'written.yaml'), 'utf8'))).toEqual(exported.document);
  });

  it('writes policies named as properties of every object (constructor, toString) as any other', () => {
    const rules = { algorithm: 'gcra' as const, limit: 5, periodMs: 1000 };
    const named = {
      ...exported,
      document: { ...exported.document, policies: { constructor: rules, toString: { ...rules } } },
      notes: { ...exported.notes, routes: { toString: ['GET /x (X.x)'] }, editedFromCode: [] },
    };
    const text = writePolicyFile(named, 'yaml', { url: 'http://x/sluice', schema: null });
    expect(text).toContain('  # used by no route\n  constructor:');
    expect(text).toContain('  # used by GET /x (X.x)\n  toString:');
    expect(parse(text)).toEqual(named.document);
  });

  it('is JSON with its schema named first', () => {
    const text = writePolicyFile(exported, 'json', { url: 'http://x/sluice', schema: './s.json' });
    expect(Object.keys(JSON.parse(text) as object)[0]).toBe('$schema');
  });
});
