// Tries README.md's first command (under "Try it") as a newcomer would on a fresh clone: it must install, build and
// start the demo, which prints the panel's URL and a one-time token; then the panel must answer
// and the token must sign in. Run by .ci/run before the test suite. No dependencies: it runs
// before anything is installed.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const START_TIMEOUT_MS = 10 * 60_000;
const STOP_GRACE_MS = 10_000;
const PANEL_URL = /Admin panel on (http:\/\/\S+\/sluice)\b/;
const ONE_TIME_TOKEN = /sign in as "(\S+)" with the one-time token (\S+)/;

function firstCommand() {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  // The first command of the first shell block under "## Try it": what a newcomer runs first.
  const section = readme.split(/^## Try it\s*$/m)[1] ?? '';
  const block = /```(?:sh|bash|shell)\n([\s\S]*?)```/.exec(section);
  const line = block?.[1].split('\n').find((text) => text.trim() !== '');
  if (line === undefined) {
    throw new Error('README.md has no ```sh block under "## Try it" to take a command from');
  }
  return line.replace(/\s+#.*$/, '').trim();
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function newcomerEnv(port, dataDir) {
  const env = { ...process.env, PORT: String(port), SLUICE_DATA_DIR: dataDir, NO_COLOR: '1' };
  for (const name of ['REDIS_URL', 'DATABASE_URL', 'SLUICE_ADMIN_TOKENS', 'NODE_ENV']) {
    delete env[name];
  }
  return env;
}

function waitForStart(child) {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`no panel URL and token within ${START_TIMEOUT_MS / 1000} s`)),
      START_TIMEOUT_MS,
    );
    const read = (chunk) => {
      process.stdout.write(chunk);
      output += chunk.toString('utf8');
      const panel = PANEL_URL.exec(output);
      const token = ONE_TIME_TOKEN.exec(output);
      if (panel && token) {
        clearTimeout(timer);
        resolve({ panelUrl: panel[1], name: token[1], token: token[2] });
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the command ended before the demo was ready (${code ?? signal})`));
    });
  });
}

async function check({ panelUrl, name, token }) {
  const panel = await fetch(`${panelUrl}/`);
  const html = await panel.text();
  if (panel.status !== 200 || !html.includes('<div id="root">')) {
    throw new Error(`GET ${panelUrl}/ answered ${panel.status}, not the panel`);
  }
  const session = await fetch(`${panelUrl}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-requested-with': 'sluice' },
    body: JSON.stringify({ name, password: token }),
  });
  if (!session.ok) throw new Error(`signing in with the printed token answered ${session.status}`);
}

function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const group = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group has already gone.
    }
  };
  group('SIGTERM');
  const kill = setTimeout(() => group('SIGKILL'), STOP_GRACE_MS);
  return exited.finally(() => clearTimeout(kill));
}

const command = firstCommand();
const dataDir = mkdtempSync(join(tmpdir(), 'sluice-readme-'));
console.log(`README's first command: ${command}`);
const child = spawn('bash', ['-c', command], {
  cwd: ROOT,
  env: newcomerEnv(await freePort(), dataDir),
  stdio: ['ignore', 'pipe', 'pipe'],
  detached: true,
});
let failure;
try {
  const started = await waitForStart(child);
  await check(started);
  console.log(
    `README's first command: the panel answered at ${started.panelUrl}, the token signs in`,
  );
} catch (error) {
  failure = error;
} finally {
  await stop(child);
  rmSync(dataDir, { recursive: true, force: true });
}
if (failure !== undefined) {
  console.error(`README's first command failed: ${failure.message}`);
  process.exit(1);
}
