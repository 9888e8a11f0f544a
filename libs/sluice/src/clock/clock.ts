/** Microseconds since the epoch, as an integer. */
export type Clock = () => number;

/** When the process's monotonic timer started, epoch ms: read once, its getter is not free. */
const TIME_ORIGIN = performance.timeOrigin;

/** The process's clock: wall time, read from the monotonic timer's origin so it never steps back. */
export const systemClock: Clock = () => Math.floor((TIME_ORIGIN + performance.now()) * 1000);

/** The clock's time in whole epoch milliseconds, as dates and the admin API state times. */
export function epochMs(clock: Clock): number {
  return Math.floor(clock() / 1000);
}

/** A clock that moves only when told to: for tests and simulations. */
export class ManualClock {
  constructor(private micros: number = 1_700_000_000_000_000) {}

  /** The clock to inject: reads the time this object holds. */
  readonly now: Clock = () => this.micros;

  /** Moves the time forward by `micros`. */
  advance(micros: number): void {
    this.micros += micros;
  }

  /** Sets the time, µs since the epoch. */
  set(micros: number): void {
    this.micros = micros;
  }
}
