import { access, readFile, readdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig, type DemoConfig } from '../../../apps/demo/src/config.js';

// Docker does not run where the tests do: these read the files and hold them to the demo's own
// configuration, so that a renamed variable or a moved port fails here rather than at `up`.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const COMPOSE_FILE = fileURLToPath(new URL('../../../docker-compose.yml', import.meta.url));
const DOCKERFILE = fileURLToPath(new URL('../../../apps/demo/Dockerfile', import.meta.url));
const DOCKERIGNORE = fileURLToPath(new URL('../../../.dockerignore', import.meta.url));
const NGINX_CONF = fileURLToPath(new URL('../../../docker/nginx.conf', import.meta.url));
const CONFIG_SOURCE = fileURLToPath(new URL('../../../apps/demo/src/config.ts', import.meta.url));
const ROOT_MANIFEST = fileURLToPath(new URL('../../../package.json', import.meta.url));

const DEMOS = ['demo-1', 'demo-2', 'demo-3'];
const SERVICES = ['redis', 'postgres', ...DEMOS, 'proxy'];
/** What an operator would export before `docker compose up`. */
const GIVEN: Record<string, string> = {
  SLUICE_ADMIN_TOKENS: 'alice:admin:0123456789abcdef0123456789abcdef',
};

type EnvValue = string | number | boolean | null;

interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  environment?: Record<string, EnvValue> | string[];
  ports?: (string | number | { published?: string | number; target?: number })[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: string | string[] };
}

interface ComposeFile {
  services: Record<string, Service>;
}

interface Instruction {
  keyword: string;
  args: string;
}

interface Stage {
  name: string | undefined;
  instructions: Instruction[];
}

const composeText = await readFile(COMPOSE_FILE, 'utf8');
const compose = parse(composeText, { merge: true }) as ComposeFile;
const nginx = (await readFile(NGINX_CONF, 'utf8')).replace(/#[^\n]*/g, '');
const stages = parseDockerfile(await readFile(DOCKERFILE, 'utf8'));

/** Compose's `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?message}`, `${VAR?message}`, `$$`. */
function interpolate(raw: string, given: Record<string, string>): string {
  const reference = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g;
  return raw.replace(
    reference,
    (match: string, name?: string, colon?: string, kind?: string, rest?: string): string => {
      if (name === undefined) return '$';
      const value = given[name];
      const missing = value === undefined || (colon === ':' && value === '');
      if (!missing) return value;
      if (kind === '-') return rest ?? '';
      throw new Error(`${match}: ${name} is required${kind === '?' ? `: ${rest}` : ''}`);
    },
  );
}

function service(name: string): Service {
  const found = compose.services[name];
  if (found === undefined) throw new Error(`no service ${name} in docker-compose.yml`);
  return found;
}

/** A service's environment as written, before interpolation. */
function rawEnvironment(name: string): Record<string, string> {
  const environment = service(name).environment ?? {};
  const entries = Array.isArray(environment)
    ? environment.map((entry): [string, string] => {
        const [key = '', ...value] = entry.split('=');
        return [key, value.join('=')];
      })
    : Object.entries(environment).map(([key, value]): [string, string] => [key, String(value)]);
  return Object.fromEntries(entries);
}

function environment(name: string, given = GIVEN): Record<string, string> {
  return Object.fromEntries(
    Object.entries(rawEnvironment(name)).map(([key, value]) => [key, interpolate(value, given)]),
  );
}

function dependencies(name: string): Record<string, string | undefined> {
  const dependsOn = service(name).depends_on ?? {};
  return Array.isArray(dependsOn)
    ? Object.fromEntries(dependsOn.map((dependency) => [dependency, undefined]))
    : Object.fromEntries(Object.entries(dependsOn).map(([key, value]) => [key, value.condition]));
}

function publishedPorts(name: string): string[] {
  return (service(name).ports ?? []).map((port) =>
    typeof port === 'object' ? `${port.published}:${port.target}` : String(port),
  );
}

function healthcheckPort(name: string): number {
  const test = service(name).healthcheck?.test;
  const command = Array.isArray(test) ? test.join(' ') : (test ?? '');
  const port = /127\.0\.0\.1:(\d+)\/health\b/.exec(command)?.[1];
  if (port === undefined) throw new Error(`${name}'s healthcheck does not call /health`);
  return Number(port);
}

/** The environment variables config.ts reads: the UPPER_CASE keys of its zod object. */
async function configVariables(): Promise<string[]> {
  const source = await readFile(CONFIG_SOURCE, 'utf8');
  const object = /\.object\(\{([\s\S]*?)\n\s*\}\)/.exec(source)?.[1] ?? '';
  return [...object.matchAll(/^\s*([A-Z][A-Z0-9_]*):/gm)].map(([, name]) => name ?? '');
}

function demoConfig(name: string): DemoConfig {
  return loadConfig(environment(name));
}

/** `name:role:token` with a token that looks real, not a `<placeholder>`. */
function literalCredentials(text: string): string[] {
  return text.match(/[\w.@-]+:(?:viewer|operator|admin):[A-Za-z0-9+/=_.-]{8,}/g) ?? [];
}

/** The directives directly inside an nginx block, found by its opening (`upstream demo`). */
function nginxBlock(opening: string): string[] {
  const escaped = opening.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&').replace(/ /g, '\\s+');
  const start = new RegExp(`(?:^|[\\s;{}])${escaped}\\s*\\{`).exec(nginx);
  if (start === null) throw new Error(`no block "${opening}" in nginx.conf`);
  const directives: string[] = [];
  let depth = 1;
  let current = '';
  for (const char of nginx.slice(start.index + start[0].length)) {
    if (char === '{' || char === '}') {
      depth += char === '{' ? 1 : -1;
      current = '';
      if (depth === 0) break;
    } else if (depth === 1 && char === ';') {
      directives.push(current.trim().replace(/\s+/g, ' '));
      current = '';
    } else if (depth === 1) {
      current += char;
    }
  }
  return directives;
}

function parseDockerfile(text: string): Stage[] {
  const lines = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const result: Stage[] = [];
  for (const line of lines) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const instruction = { keyword: keyword.toUpperCase(), args };
    if (instruction.keyword === 'FROM') {
      result.push({ name: /\sAS\s+(\S+)$/i.exec(args)?.[1], instructions: [] });
    }
    const current = result.at(-1);
    if (current === undefined) throw new Error(`${keyword} before the first FROM`);
    current.instructions.push(instruction);
  }
  return result;
}

function argsOf(stage: Stage, keyword: string): string[] {
  return stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
}

/** A COPY's flags, sources and destination. */
function copyParts(args: string): { from: string | undefined; sources: string[] } {
  const words = args.split(/\s+/);
  const flags = words.filter((word) => word.startsWith('--'));
  const paths = words.filter((word) => !word.startsWith('--'));
  const from = flags.find((flag) => flag.startsWith('--from='))?.slice('--from='.length);
  return { from, sources: paths.slice(0, -1) };
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** The workspace folders the root package.json declares (`libs/*`, `apps/*`) that hold a package. */
async function workspaces(): Promise<string[]> {
  const manifest = JSON.parse(await readFile(ROOT_MANIFEST, 'utf8')) as { workspaces: string[] };
  const found: string[] = [];
  for (const pattern of manifest.workspaces) {
    const parent = pattern.replace(/\/\*$/, '');
    for (const entry of await readdir(join(ROOT, parent), { withFileTypes: true })) {
      const folder = `${parent}/${entry.name}`;
      if (entry.isDirectory() && (await exists(join(ROOT, folder, 'package.json')))) {
        found.push(folder);
      }
    }
  }
  return found;
}

describe('docker-compose.yml', () => {
  it('runs Redis, PostgreSQL, three demo instances and the proxy, each with a healthcheck', () => {
    expect(Object.keys(compose.services).sort()).toEqual([...SERVICES].sort());
    for (const name of SERVICES) {
      const test = service(name).healthcheck?.test;
      // ['NONE'] (or no test at all) turns the image's healthcheck off.
      expect(Array.isArray(test) ? test[0] : test, name).toMatch(/^(CMD|CMD-SHELL)\b/);
    }
  });

  it('publishes one port, the proxy’s 8080 to 80', () => {
    for (const name of SERVICES) {
      expect(publishedPorts(name), name).toEqual(name === 'proxy' ? ['8080:80'] : []);
    }
  });

  it('builds the demos from apps/demo/Dockerfile with the repository root as the context', () => {
    for (const name of DEMOS) {
      const build = service(name).build;
      expect(typeof build, name).toBe('object');
      const { context = '.', dockerfile = 'Dockerfile' } = typeof build === 'object' ? build : {};
      const contextPath = resolve(dirname(COMPOSE_FILE), context);
      expect(contextPath, name).toBe(resolve(ROOT));
      expect(resolve(contextPath, dockerfile), name).toBe(DOCKERFILE);
    }
  });

  it('gives each demo an environment its own loadConfig accepts, pointing at the services', () => {
    const postgres = environment('postgres');
    for (const name of DEMOS) {
      const config = demoConfig(name);
      expect(config.port, name).toBe(healthcheckPort(name));
      expect(config.nodeEnv, name).toBe('production');
      // nginx is the one hop in front of the instances.
      expect(config.trustProxy, name).toBe(1);
      expect(config.adminTokens, name).toBe(GIVEN.SLUICE_ADMIN_TOKENS);

      const redis = new URL(config.redisUrl ?? 'missing:');
      expect(compose.services).toHaveProperty(redis.hostname);
      expect([redis.hostname, redis.port || '6379'], name).toEqual(['redis', '6379']);

      const database = new URL(config.databaseUrl ?? 'missing:');
      expect(compose.services).toHaveProperty(database.hostname);
      expect(
        {
          host: database.hostname,
          port: database.port || '5432',
          user: decodeURIComponent(database.username),
          password: decodeURIComponent(database.password),
          database: database.pathname.slice(1),
        },
        name,
      ).toEqual({
        host: 'postgres',
        port: '5432',
        user: postgres.POSTGRES_USER,
        password: postgres.POSTGRES_PASSWORD,
        database: postgres.POSTGRES_DB,
      });
    }
  });

  it('follows a password given for PostgreSQL in both the database and the demos', () => {
    const given = { ...GIVEN, POSTGRES_PASSWORD: 'given-elsewhere' };
    expect(environment('postgres', given).POSTGRES_PASSWORD).toBe('given-elsewhere');
    for (const name of DEMOS) {
      const url = new URL(loadConfig(environment(name, given)).databaseUrl ?? 'missing:');
      expect(url.password, name).toBe('given-elsewhere');
    }
  });

  it('sets only variables config.ts reads', async () => {
    const known = await configVariables();
    expect(known).toContain('PORT');
    for (const name of DEMOS) {
      for (const variable of Object.keys(rawEnvironment(name))) {
        expect(known, `${name}: ${variable}`).toContain(variable);
      }
    }
  });

  it('requires SLUICE_ADMIN_TOKENS and holds no credential of its own', () => {
    for (const name of DEMOS) {
      expect(rawEnvironment(name).SLUICE_ADMIN_TOKENS, name).toMatch(
        /^\$\{SLUICE_ADMIN_TOKENS:\?[^}]+\}$/,
      );
      expect(() => environment(name, {}), name).toThrow(/SLUICE_ADMIN_TOKENS/);
    }
    expect(literalCredentials(GIVEN.SLUICE_ADMIN_TOKENS ?? '')).not.toEqual([]);
    expect(literalCredentials(composeText)).toEqual([]);
  });

  it('starts the demos once Redis and PostgreSQL are healthy, and the proxy once the demos are', () => {
    for (const name of DEMOS) {
      expect(dependencies(name), name).toEqual({
        redis: 'service_healthy',
        postgres: 'service_healthy',
      });
    }
    expect(dependencies('proxy')).toEqual(
      Object.fromEntries(DEMOS.map((name) => [name, 'service_healthy'])),
    );
  });
});

describe('docker/nginx.conf', () => {
  it('balances over exactly the demo services, at the port they listen on', () => {
    const servers = nginxBlock('upstream demo')
      .filter((directive) => directive.startsWith('server '))
      .map((directive) => directive.split(' ')[1]);
    expect(servers.sort()).toEqual(DEMOS.map((name) => `${name}:${demoConfig(name).port}`).sort());
  });

  it('passes requests to the upstream with the client’s address, and streams the events unbuffered', () => {
    const server = nginxBlock('server').concat(nginxBlock('location /'));
    expect(server).toContain('listen 80');
    expect(server).toContain('proxy_pass http://demo');
    expect(server).toContain('proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for');

    const events = nginxBlock('location /sluice/api/events');
    expect(events).toContain('proxy_pass http://demo');
    expect(events).toContain('proxy_buffering off');
    expect(events).toContain('proxy_read_timeout 1h');
  });
});

describe('apps/demo/Dockerfile', () => {
  it('builds in stages and runs the demo as a user other than root, on the demo port', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const final = stages.at(-1)!;
    const users = argsOf(final, 'USER');
    expect(users).not.toEqual([]);
    const user = users.at(-1)!.split(':')[0];
    expect(['root', '0']).not.toContain(user);

    expect(argsOf(final, 'EXPOSE')).toEqual([String(demoConfig('demo-1').port)]);
    const cmd = argsOf(final, 'CMD').at(-1) ?? '[]';
    expect(JSON.parse(cmd) as unknown).toEqual(['node', 'apps/demo/dist/main.js']);
  });

  it('copies only from earlier stages, and every workspace’s package.json before installing', async () => {
    const manifests: string[] = [];
    for (const [index, stage] of stages.entries()) {
      const earlier = stages.slice(0, index).map((s) => s.name);
      for (const args of argsOf(stage, 'COPY')) {
        const { from, sources } = copyParts(args);
        if (from !== undefined) expect(earlier, args).toContain(from);
        for (const source of sources.filter((path) => path.endsWith('package.json'))) {
          const path = source.replace(/^\/app\//, '');
          expect(await exists(join(ROOT, path)), source).toBe(true);
          manifests.push(path);
        }
      }
    }
    const first = stages[0]!.instructions;
    const install = first.findIndex((i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.args));
    expect(install).toBeGreaterThan(0);
    const copiedBeforeInstall = first
      .slice(0, install)
      .filter((i) => i.keyword === 'COPY')
      .flatMap((i) => copyParts(i.args).sources);
    for (const folder of await workspaces()) {
      expect(copiedBeforeInstall, folder).toContain(`${folder}/package.json`);
      expect(manifests, folder).toContain(`${folder}/package.json`);
    }
  });

  it('leaves installed and built files out of the build context', async () => {
    const patterns = (await readFile(DOCKERIGNORE, 'utf8')).split(/\r?\n/).map((l) => l.trim());
    expect(patterns).toContain('**/node_modules');
    expect(patterns).toContain('**/dist');
  });
});
