import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const STOP_GRACE_MS = 3_000;
const STDERR_TAIL = 4_000;

/** A message a worker sends or receives: always an object with a `type`. */
export interface WorkerMessage {
  type: string;
  [field: string]: unknown;
}

interface Waiter {
  type: string;
  resolve: (message: WorkerMessage) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * A TypeScript worker script in its own Node process (`node --import tsx`), talked to over IPC.
 * Messages are queued until someone asks for their type, so none is lost to a race.
 */
export class ChildWorker {
  readonly process: ChildProcess;
  private readonly inbox: WorkerMessage[] = [];
  private readonly waiters: Waiter[] = [];
  private stderr = '';
  private exited: Promise<void>;
  private exitReason: string | undefined;

  constructor(
    readonly name: string,
    script: URL,
    env: Record<string, string> = {},
  ) {
    this.process = fork(fileURLToPath(script), [], {
      cwd: REPO_ROOT,
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    this.process.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    this.process.on('message', (message: WorkerMessage) => this.deliver(message));
    this.exited = new Promise((resolve) => {
      this.process.once('exit', (code, signal) => {
        this.exitReason = `exited (${code ?? signal})`;
        for (const waiter of this.waiters.splice(0)) {
          clearTimeout(waiter.timer);
          waiter.reject(this.failure(`${this.exitReason} while waiting for '${waiter.type}'`));
        }
        resolve();
      });
    });
  }

  send(message: WorkerMessage): void {
    if (this.exitReason) throw this.failure(`${this.exitReason}; cannot send '${message.type}'`);
    this.process.send(message);
  }

  /** The next message of this type (an 'error' message from the worker rejects instead). */
  next<T extends WorkerMessage>(type: string, timeoutMs: number): Promise<T> {
    const queued = this.inbox.findIndex((m) => m.type === type || m.type === 'error');
    if (queued >= 0) {
      const [message] = this.inbox.splice(queued, 1) as [WorkerMessage];
      return message.type === 'error'
        ? Promise.reject(this.failure(`reported: ${String(message.message)}`))
        : Promise.resolve(message as T);
    }
    if (this.exitReason) {
      return Promise.reject(this.failure(`${this.exitReason} while waiting for '${type}'`));
    }
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = {
        type,
        resolve: resolve as (message: WorkerMessage) => void,
        reject,
        timer: setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          reject(this.failure(`sent no '${type}' within ${timeoutMs} ms`));
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** Sends a request and waits for the reply of the given type. */
  async request<T extends WorkerMessage>(
    message: WorkerMessage,
    replyType: string,
    timeoutMs: number,
  ): Promise<T> {
    const reply = this.next<T>(replyType, timeoutMs);
    this.send(message);
    return reply;
  }

  /** Ends this worker: SIGTERM, then SIGKILL after a grace period. */
  async stop(): Promise<void> {
    const child = this.process;
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }

  private deliver(message: WorkerMessage): void {
    const index = this.waiters.findIndex(
      (w) => w.type === message.type || message.type === 'error',
    );
    if (index < 0) {
      this.inbox.push(message);
      return;
    }
    const [waiter] = this.waiters.splice(index, 1) as [Waiter];
    clearTimeout(waiter.timer);
    if (message.type === 'error')
      waiter.reject(this.failure(`reported: ${String(message.message)}`));
    else waiter.resolve(message);
  }

  private failure(reason: string): Error {
    const tail = this.stderr.trim() ? `\nstderr:\n${this.stderr.trim()}` : '';
    return new Error(`worker ${this.name} (pid ${this.process.pid}) ${reason}${tail}`);
  }
}

/** Starts workers and stops every one of them, even when some fail to start. */
export async function stopAll(workers: readonly ChildWorker[]): Promise<void> {
  await Promise.all(workers.map((worker) => worker.stop()));
}
