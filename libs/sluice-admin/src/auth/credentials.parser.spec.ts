import { describe, expect, it } from 'vitest';
import {
  credentialProblems,
  CredentialsConfigError,
  parseCredentials,
} from './credentials.parser.js';

const TOKEN = 'correct-horse-battery';

function problemsOf(input: unknown): string[] {
  try {
    parseCredentials(input);
  } catch (error) {
    if (error instanceof CredentialsConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected the credentials to be refused');
}

describe('parseCredentials', () => {
  it('reads the SLUICE_ADMIN_TOKENS form, keeping colons inside a token', () => {
    expect(parseCredentials(` alice:admin:${TOKEN} , bob:viewer:a:b:c:d:e:f:g:h , `)).toEqual([
      { name: 'alice', role: 'admin', token: TOKEN },
      { name: 'bob', role: 'viewer', token: 'a:b:c:d:e:f:g:h' },
    ]);
  });

  it('reads a list of credentials', () => {
    const list = [{ name: 'olga@ops', role: 'operator', token: TOKEN }];
    expect(parseCredentials(list)).toEqual(list);
  });

  it('treats absent and blank credentials as none', () => {
    expect(parseCredentials(undefined)).toEqual([]);
    expect(parseCredentials('  ')).toEqual([]);
    expect(parseCredentials([])).toEqual([]);
  });

  it('names each bad field with its position and never prints a token', () => {
    const problems = problemsOf(
      `al ice:admin:${TOKEN},bob:root:${TOKEN},carol:viewer:too-short,dave:viewer:has space inside`,
    );
    expect(problems).toEqual([
      'SluiceAdminModule options.auth.credentials[0].name: must be 1 to 64 letters, digits or _ . @ -',
      'SluiceAdminModule options.auth.credentials[1].role: must be one of viewer, operator, admin',
      'SluiceAdminModule options.auth.credentials[2].token: must be at least 12 characters',
      'SluiceAdminModule options.auth.credentials[3].token: must be visible ASCII characters without spaces',
    ]);
    expect(problems.join()).not.toContain(TOKEN);
    expect(problems.join()).not.toContain('too-short');
  });

  it('refuses an entry without name:role:token without echoing it', () => {
    const problems = problemsOf(`alice:admin:${TOKEN},${TOKEN}`);
    expect(problems).toEqual([
      'SluiceAdminModule options.auth.credentials[1]: expected "name:role:token"',
    ]);
  });

  it('refuses a name used twice, naming the first use', () => {
    expect(problemsOf(`alice:admin:${TOKEN},alice:viewer:${TOKEN}x`)).toEqual([
      'SluiceAdminModule options.auth.credentials[1].name: "alice" is already used by SluiceAdminModule options.auth.credentials[0]',
    ]);
  });

  it('refuses list entries that are not credentials', () => {
    expect(problemsOf([42, { name: 'a', role: 'admin' }])).toEqual([
      'SluiceAdminModule options.auth.credentials[0]: expected an object {name, role, token}',
      'SluiceAdminModule options.auth.credentials[1].token: must be a string',
    ]);
    expect(problemsOf({ alice: TOKEN })).toEqual([
      'SluiceAdminModule options.auth.credentials: expected a list of {name, role, token} or a "name:role:token,…" string',
    ]);
  });

  it('refuses a token longer than 1024 characters', () => {
    expect(problemsOf(`alice:admin:${'x'.repeat(1025)}`)).toEqual([
      'SluiceAdminModule options.auth.credentials[0].token: must be at most 1024 characters',
    ]);
  });

  it("says an environment variable's problems by entry, for an app to name the variable", () => {
    expect(credentialProblems(`alice:admin:${TOKEN}`)).toEqual([]);
    expect(
      credentialProblems(`alice:admin:${TOKEN},bob:admin:hunter2,alice:viewer:${TOKEN}`),
    ).toEqual([
      'entry 2.token: must be at least 12 characters',
      'entry 3.name: "alice" is already used by entry 1',
    ]);
  });
});
