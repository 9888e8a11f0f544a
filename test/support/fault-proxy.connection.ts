// One proxied TCP connection: two directions that forward, hold, delay or drop bytes as the
// fault proxy's current mode says.
import type { Socket } from 'node:net';
import type { FaultMode } from './fault-proxy.js';

/** Bytes a delayed direction may hold before it stops reading from its source. */
const MAX_HELD_BYTES = 1024 * 1024;

/** Pipes one direction of a connection, obeying the proxy's current mode. */
class Direction {
  readonly #held: Array<{ chunk: Buffer; dueAt: number }> = [];
  #heldBytes = 0;
  #timer: NodeJS.Timeout | undefined;
  /** What to do once the held chunks are out (pass on the source's end). */
  #whenEmpty: (() => void) | undefined;
  #awaitingDrain = false;

  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
    private readonly current: () => FaultMode,
  ) {
    from.on('data', (chunk: Buffer) => this.#receive(chunk));
    from.on('end', () => {
      if (this.#held.length === 0) to.end();
      else this.#whenEmpty = () => to.end();
    });
  }

  /** Called after a mode change: releases what a blackhole or a delay was holding. */
  refresh(): void {
    const mode = this.current();
    if (mode === 'blackhole') {
      this.from.pause();
      return;
    }
    this.#flush();
    if (this.#heldBytes < MAX_HELD_BYTES && !this.to.writableNeedDrain) this.from.resume();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#held.length = 0;
  }

  #receive(chunk: Buffer): void {
    const mode = this.current();
    const delayMs = typeof mode === 'object' ? mode.delayMs : 0;
    const lastDue = this.#held.at(-1)?.dueAt ?? 0;
    // A later chunk never overtakes an earlier one, even when the delay shrinks.
    this.#held.push({ chunk, dueAt: Math.max(Date.now() + delayMs, lastDue) });
    this.#heldBytes += chunk.length;
    if (mode === 'blackhole' || this.#heldBytes >= MAX_HELD_BYTES) this.from.pause();
    this.#flush();
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.current() === 'blackhole' || this.to.destroyed) return;
    const now = Date.now();
    while (this.#held.length > 0 && this.#held[0]!.dueAt <= now) {
      const { chunk } = this.#held.shift()!;
      this.#heldBytes -= chunk.length;
      if (!this.to.write(chunk) && !this.#awaitingDrain) {
        this.#awaitingDrain = true;
        this.from.pause();
        this.to.once('drain', () => {
          this.#awaitingDrain = false;
          this.refresh();
        });
      }
    }
    const next = this.#held[0];
    if (next !== undefined) {
      this.#timer = setTimeout(() => this.refresh(), next.dueAt - now);
    } else if (this.#whenEmpty) {
      const action = this.#whenEmpty;
      this.#whenEmpty = undefined;
      action();
    }
  }
}

/** A client socket and its upstream socket, closed together. */
export class ProxiedConnection {
  readonly #directions: Direction[];

  constructor(
    readonly client: Socket,
    readonly upstream: Socket,
    current: () => FaultMode,
    onClose: () => void,
  ) {
    this.#directions = [
      new Direction(client, upstream, current),
      new Direction(upstream, client, current),
    ];
    let closed = false;
    const close = (): void => {
      if (closed) return;
      closed = true;
      for (const direction of this.#directions) direction.stop();
      client.destroy();
      upstream.destroy();
      onClose();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', close);
      socket.on('close', close);
    }
  }

  refresh(): void {
    for (const direction of this.#directions) direction.refresh();
  }

  destroy(): void {
    this.client.destroy();
    this.upstream.destroy();
  }

  reset(): void {
    for (const socket of [this.client, this.upstream]) {
      if (!socket.destroyed) socket.resetAndDestroy();
    }
  }
}
