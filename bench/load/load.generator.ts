import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { LoadRequest, LoadResult } from './load.types.js';

const WORKER = fileURLToPath(new URL('./load.worker.ts', import.meta.url));

type Reply = { ready: true } | { result: LoadResult } | { error: string };

/** A load-generator process (autocannon), kept for many runs. */
export class LoadGenerator {
  private constructor(private readonly child: ChildProcess) {}

  static async start(): Promise<LoadGenerator> {
    const child = fork(WORKER, [], { execArgv: ['--import', 'tsx/esm'], stdio: 'inherit' });
    process.once('exit', () => child.kill('SIGKILL'));
    await once(child, 'message');
    return new LoadGenerator(child);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  run(load: LoadRequest): Promise<LoadResult> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) =>
        reject(new Error(`load generator exited (${code ?? 'signal'}) during a run`));
      this.child.once('exit', onExit);
      this.child.once('message', (reply: Reply) => {
        this.child.off('exit', onExit);
        if ('result' in reply) resolve(reply.result);
        else
          reject(
            new Error(`load generator: ${'error' in reply ? reply.error : 'unexpected reply'}`),
          );
      });
      this.child.send(load);
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.kill('SIGTERM');
    await exited;
  }
}
