import { Module, type DynamicModule } from '@nestjs/common';
import { LocalPolicyChannel } from '../bus/local.channel.js';
import { ManualClock, systemClock } from '../clock/clock.js';
import type {
  SluiceModuleExtras,
  SluiceModuleOptions,
} from '../config/sluice-options.interface.js';
import { POLICY_CHANNEL, SLUICE_CLOCK } from '../config/sluice.tokens.js';
import { SluiceModule } from '../nest/sluice.module.js';

/** What `SluiceTestingModule.forRoot()` takes: the module's options without a Redis connection. */
export interface SluiceTestingOptions
  extends Omit<SluiceModuleOptions, 'redis'>, Partial<Pick<SluiceModuleExtras, 'global'>> {
  /**
   * `false`: every guarded request passes undecided, as when an operator switches enforcement
   * off; default `true`, each request decided in memory under the policies given.
   */
  enabled?: boolean;
  /**
   * The time decisions are made at; advance it to open the next window without waiting. Default:
   * a clock of its own, standing still at the module's creation.
   */
  clock?: ManualClock;
}

/**
 * Sluice for an app's own specs (docs/guide.md, "Testing your app"): `SluiceModule` on the
 * in-memory store and channel, on a clock the spec moves, with limits on or off. Import it in
 * `Test.createTestingModule()` where the app imports `SluiceModule`, and a controller under
 * `@UseGuards(SluiceGuard)` compiles; nothing connects to Redis.
 */
@Module({})
export class SluiceTestingModule {
  /** Sluice in memory, decided at `clock`'s time, enforcing unless `enabled` is false. */
  static forRoot(options: SluiceTestingOptions = {}): DynamicModule {
    const { enabled = true, clock, global = false, ...rest } = options;
    // A Redis connection a caller passes anyway (from JavaScript) is dropped: specs stay in memory.
    const inMemory: SluiceModuleOptions = { ...rest };
    delete inMemory.redis;
    if (typeof enabled !== 'boolean') {
      throw new RangeError(
        `SluiceTestingModule options.enabled: must be true or false, got ${String(enabled)}`,
      );
    }
    if (clock !== undefined && !(clock instanceof ManualClock)) {
      throw new RangeError('SluiceTestingModule options.clock: must be a ManualClock');
    }
    const now = (clock ?? new ManualClock(systemClock())).now;
    const base = SluiceModule.forRoot({ ...inMemory, global });
    return {
      ...base,
      providers: [
        ...(base.providers ?? []),
        { provide: SLUICE_CLOCK, useValue: now },
        { provide: POLICY_CHANNEL, useFactory: () => channelOf(enabled) },
      ],
    };
  }
}

/**
 * The in-memory channel; switched off, it holds a published snapshot that stores no policy of its
 * own and says enforcement is off, so the code's policies stay and the guard passes every request.
 */
function channelOf(enabled: boolean): LocalPolicyChannel {
  const channel = new LocalPolicyChannel();
  if (!enabled) void channel.write({ version: 1, enforcement: false, policies: [] });
  return channel;
}
