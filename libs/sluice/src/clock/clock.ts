/** Microseconds since the epoch, as an integer. */
export type Clock = () => number;

export const systemClock: Clock = () =>
  Math.floor((performance.timeOrigin + performance.now()) * 1000);

/** A clock that moves only when told to: for tests and simulations. */
export class ManualClock {
  constructor(private micros: number = 1_700_000_000_000_000) {}

  readonly now: Clock = () => this.micros;

  advance(micros: number): void {
    this.micros += micros;
  }

  set(micros: number): void {
    this.micros = micros;
  }
}
