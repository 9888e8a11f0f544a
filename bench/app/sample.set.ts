import { spread, type Spread } from '../engine/measure.js';
import type { KeyMode } from './bench.constants.js';
import type { AdapterName } from './contender.env.js';
import type { Sample } from './throughput.scenario.js';

/** Where a sample was taken: an adapter and a key mode. */
export interface Cell {
  adapter: AdapterName;
  mode: KeyMode;
}

/** The throughput samples, by contender and cell, with figures over the rounds. */
export class SampleSet {
  constructor(readonly samples: readonly Sample[]) {}

  of(contender: string, cell: Cell): Sample[] {
    return this.samples.filter(
      (sample) =>
        sample.contender === contender &&
        sample.adapter === cell.adapter &&
        sample.mode === cell.mode,
    );
  }

  has(contender: string, cell: Cell): boolean {
    return this.of(contender, cell).length > 0;
  }

  /** Median (min–max) over the rounds of one figure. */
  spread(contender: string, cell: Cell, figure: (sample: Sample) => number): Spread {
    return spread(this.of(contender, cell).map(figure));
  }

  /**
   * CPU per response of the app, Redis and the load generator together, µs: the three share the
   * machine's cores, so throughput can rise no further than this sum falls.
   */
  machineCpu(contender: string, cell: Cell): Spread {
    return this.spread(contender, cell, (s) => s.appCpuUs + s.redis.cpuUs + s.loadCpuUs);
  }

  /** contender's throughput ÷ versus's, each round against the same round, over the rounds. */
  ratio(contender: string, versus: string, cell: Cell): Spread {
    const theirs = new Map(this.of(versus, cell).map((s) => [s.round, s.load.perSecond]));
    return spread(
      this.of(contender, cell).map(
        (sample) => sample.load.perSecond / (theirs.get(sample.round) ?? NaN),
      ),
    );
  }

  /** Every sample's cores used by the rest of the machine. */
  otherCores(): Spread {
    return spread(this.samples.map((sample) => sample.otherCores));
  }
}
