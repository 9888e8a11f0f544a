import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const HOST = '127.0.0.1';
const DEFAULT_START_TIMEOUT_MS = 10_000;
const DEFAULT_CLUSTER_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;
const CLUSTER_SLOTS = 16_384;
const LOG_TAIL_LINES = 40;
const PORT_ATTEMPTS = 3;

const execFileAsync = promisify(execFile);

export interface RedisNodeAddress {
  readonly host: string;
  readonly port: number;
}

export interface RedisServer extends RedisNodeAddress {
  readonly url: string;
  /** PID of the current process; changes on restart(). */
  readonly pid: number;
  /** Stops the process (SIGTERM, then SIGKILL after a grace period) and deletes its directory. */
  stop(): Promise<void>;
  /**
   * Stops the process and starts a new one on the same port. Nothing is persisted, so it comes back
   * empty; a cluster node keeps its nodes.conf and so rejoins its cluster.
   */
  restart(): Promise<void>;
  /** SIGKILL, as a crash: no shutdown of any kind. restart() starts it again, empty. */
  kill(): Promise<void>;
}

export interface RedisServerOptions {
  /** How long to wait for the new server to answer. */
  readonly startTimeoutMs?: number;
}

export interface RedisClusterOptions {
  /** At least 3: redis-cli refuses to create a smaller cluster. */
  readonly masters: number;
  readonly replicasPerMaster?: 0 | 1;
  /** Bound on the whole start: processes, `redis-cli --cluster create`, and convergence. */
  readonly startTimeoutMs?: number;
}

export interface RedisCluster {
  readonly nodes: readonly RedisNodeAddress[];
  /** Every node's process, masters and replicas alike, so a test can stop or restart one. */
  readonly servers: readonly RedisServer[];
  stop(): Promise<void>;
}

/** Last resort for an aborted run: no redis-server we started outlives this process. */
const liveChildren = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
});

class PortInUseError extends Error {}

type Ports = [port: number, clusterBusPort?: number];

class ManagedRedisServer implements RedisServer {
  readonly host = HOST;
  #child: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();
  #output: string[] = [];
  #spawnError: Error | undefined;

  constructor(
    readonly port: number,
    private readonly clusterBusPort: number | undefined,
    private readonly dir: string,
    private readonly startTimeoutMs: number,
  ) {}

  get url(): string {
    return `redis://${HOST}:${this.port}`;
  }

  get pid(): number {
    const pid = this.#child?.pid;
    if (pid === undefined) throw new Error(`redis-server on port ${this.port} is not running`);
    return pid;
  }

  async start(): Promise<void> {
    const child = spawn('redis-server', this.#args(), { stdio: ['ignore', 'pipe', 'pipe'] });
    this.#child = child;
    this.#output = [];
    this.#spawnError = undefined;
    liveChildren.add(child);
    this.#exited = new Promise((resolve) => {
      child.once('exit', () => {
        liveChildren.delete(child);
        resolve();
      });
    });
    child.once('error', (error) => {
      this.#spawnError = error;
    });
    child.stdout?.on('data', (chunk: Buffer) => this.#record(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.#record(chunk));
    await this.#waitUntilAnswering(child);
  }

  async stop(): Promise<void> {
    await this.#terminate();
    await rm(this.dir, { recursive: true, force: true });
  }

  async restart(): Promise<void> {
    await this.#terminate();
    await this.start();
  }

  async kill(): Promise<void> {
    const child = this.#child;
    if (child?.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await this.#exited;
  }

  #args(): string[] {
    const config: Record<string, string> = {
      port: String(this.port),
      bind: HOST,
      save: '',
      appendonly: 'no',
      daemonize: 'no',
      dir: this.dir,
      // Replicas would otherwise wait 5 s before their first sync.
      'repl-diskless-sync-delay': '0',
    };
    if (this.clusterBusPort !== undefined) {
      Object.assign(config, {
        'cluster-enabled': 'yes',
        'cluster-config-file': join(this.dir, `nodes-${this.port}.conf`),
        'cluster-node-timeout': '2000',
        // The default bus port (port + 10000) may be taken, or above 65535 for an ephemeral port.
        'cluster-port': String(this.clusterBusPort),
      });
    }
    return Object.entries(config).flatMap(([name, value]) => [`--${name}`, value]);
  }

  async #waitUntilAnswering(child: ChildProcess): Promise<void> {
    const deadline = Date.now() + this.startTimeoutMs;
    while (Date.now() < deadline) {
      if (this.#spawnError) {
        throw this.#failure(`could not be spawned: ${this.#spawnError.message}`);
      }
      if (child.exitCode !== null || child.signalCode !== null) {
        const reason = `exited during start (${child.exitCode ?? child.signalCode})`;
        throw this.#output.some((line) => line.includes('Address already in use'))
          ? new PortInUseError(this.#failure(reason).message)
          : this.#failure(reason);
      }
      // Matching the pid, not just getting PONG, proves the answer isn't from a stranger on this port.
      const info = await redisCli(this, ['INFO', 'server']).catch(() => '');
      if (info.split(/\r?\n/).includes(`process_id:${child.pid}`)) return;
      await sleep(50);
    }
    throw this.#failure(`did not answer within ${this.startTimeoutMs} ms`);
  }

  async #terminate(): Promise<void> {
    const child = this.#child;
    // A child without a pid was never spawned (its 'error' event says why), so there is nothing to stop.
    if (child?.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const exitedInTime = await Promise.race([
      this.#exited.then(() => true),
      // Unref, so a timer left over after a quick exit does not hold the process open.
      sleep(STOP_GRACE_MS, false, { ref: false }),
    ]);
    if (!exitedInTime) {
      child.kill('SIGKILL');
      await this.#exited;
    }
  }

  #record(chunk: Buffer): void {
    this.#output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    this.#output.splice(0, this.#output.length - LOG_TAIL_LINES);
  }

  #failure(reason: string): Error {
    const tail = this.#output.length > 0 ? this.#output.join('\n') : '(no output)';
    return new Error(`redis-server on ${HOST}:${this.port} ${reason}. Last output:\n${tail}`);
  }
}

/** Starts a standalone, non-persistent redis-server on a free loopback port. */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  return launch(false, options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
}

/**
 * Starts cluster-enabled servers, joins them with `redis-cli --cluster create`, and waits until
 * every node sees the whole topology, all slots assigned and the cluster state ok, and every
 * replica has synced with its master.
 */
export async function startRedisCluster(options: RedisClusterOptions): Promise<RedisCluster> {
  const { masters, replicasPerMaster = 0 } = options;
  if (!Number.isInteger(masters) || masters < 3) {
    throw new Error(`a Redis Cluster needs at least 3 masters, got ${masters}`);
  }
  const deadline = Date.now() + (options.startTimeoutMs ?? DEFAULT_CLUSTER_TIMEOUT_MS);
  const count = masters * (1 + replicasPerMaster);

  const launches = await Promise.allSettled(
    Array.from({ length: count }, () => launch(true, DEFAULT_START_TIMEOUT_MS)),
  );
  const servers = launches.flatMap((result) =>
    result.status === 'fulfilled' ? [result.value] : [],
  );
  const stop = async (): Promise<void> => {
    await Promise.all(servers.map((server) => server.stop()));
  };

  try {
    const failed = launches.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;

    const addresses = servers.map((server) => `${server.host}:${server.port}`);
    await execFileAsync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...addresses,
        '--cluster-replicas',
        String(replicasPerMaster),
        '--cluster-yes',
      ],
      { timeout: Math.max(deadline - Date.now(), 1) },
    ).catch((error: unknown) => {
      const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
      throw new Error(
        `redis-cli --cluster create ${addresses.join(' ')} failed:\n${stdout}${stderr}`,
      );
    });
    await waitForHealthyCluster(servers, masters, deadline);
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    nodes: servers.map(({ host, port }) => ({ host, port })),
    servers,
    stop,
  };
}

/** Formats addresses as the comma-separated `host:port` list used by TEST_REDIS_CLUSTER_NODES. */
export function formatNodeAddresses(nodes: readonly RedisNodeAddress[]): string {
  return nodes.map(({ host, port }) => `${host}:${port}`).join(',');
}

/** Parses a comma-separated `host:port` list such as TEST_REDIS_CLUSTER_NODES. */
export function parseNodeAddresses(list: string): RedisNodeAddress[] {
  return list
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const separator = entry.lastIndexOf(':');
      const host = entry.slice(0, separator);
      const port = Number(entry.slice(separator + 1));
      if (separator <= 0 || !Number.isInteger(port) || port <= 0 || port > 65_535) {
        throw new Error(`invalid Redis node address "${entry}", expected host:port`);
      }
      return { host, port };
    });
}

async function launch(
  clusterEnabled: boolean,
  startTimeoutMs: number,
): Promise<ManagedRedisServer> {
  // Another process can take a port between our probe and redis-server's bind, so retry with fresh ports.
  for (let attempt = 1; ; attempt++) {
    const [port, clusterBusPort] = (await findFreePorts(clusterEnabled ? 2 : 1)) as Ports;
    const dir = await mkdtemp(join(tmpdir(), 'sluice-redis-'));
    const server = new ManagedRedisServer(port, clusterBusPort, dir, startTimeoutMs);
    try {
      await server.start();
      return server;
    } catch (error) {
      await server.stop();
      if (!(error instanceof PortInUseError) || attempt === PORT_ATTEMPTS) throw error;
    }
  }
}

/** Holds all probe sockets open together so the ports returned are distinct. */
async function findFreePorts(count: number): Promise<number[]> {
  const probes: Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const probe = createServer();
      probes.push(probe);
      probe.listen(0, HOST);
      await once(probe, 'listening');
    }
    return probes.map((probe) => (probe.address() as AddressInfo).port);
  } finally {
    await Promise.all(
      probes.map((probe) => new Promise<void>((resolve) => probe.close(() => resolve()))),
    );
  }
}

async function waitForHealthyCluster(
  servers: readonly RedisServer[],
  masters: number,
  deadline: number,
): Promise<void> {
  const replicas = servers.length - masters;
  let lastReports: string[] = [];
  while (Date.now() < deadline) {
    lastReports = await Promise.all(
      servers.map((server) =>
        Promise.all([
          redisCli(server, ['CLUSTER', 'INFO']),
          redisCli(server, ['INFO', 'replication']),
          redisCli(server, ['CLUSTER', 'NODES']),
        ])
          .then((replies) => replies.join('\n'))
          .catch(String),
      ),
    );
    const healthy = lastReports.every((report) => {
      const lines = report.split(/\r?\n/);
      // CLUSTER NODES lines read: id address flags master-id ...; roles spread by gossip, so every
      // node's own view must already show the final topology.
      const flags = lines.map((line) => line.split(' ')[2] ?? '');
      return (
        lines.includes('cluster_state:ok') &&
        lines.includes(`cluster_slots_assigned:${CLUSTER_SLOTS}`) &&
        lines.includes(`cluster_known_nodes:${servers.length}`) &&
        (lines.includes('role:master') || lines.includes('master_link_status:up')) &&
        flags.filter((flag) => flag.includes('master')).length === masters &&
        flags.filter((flag) => flag.includes('slave')).length === replicas
      );
    });
    if (healthy) return;
    await sleep(100);
  }
  const details = lastReports.map((report, i) => `--- port ${servers[i]?.port}\n${report}`);
  throw new Error(
    `Redis Cluster did not become healthy in time. Last reports:\n${details.join('\n')}`,
  );
}

async function redisCli(node: RedisNodeAddress, command: readonly string[]): Promise<string> {
  const { stdout } = await execFileAsync(
    'redis-cli',
    ['-h', node.host, '-p', String(node.port), ...command],
    { timeout: 2_000 },
  );
  return stdout.trim();
}
