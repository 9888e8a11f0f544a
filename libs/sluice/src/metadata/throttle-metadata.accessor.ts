import { Inject, Injectable, type Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { getOrAdd, newWeakMap } from '../collections/get-or-add.js';
import {
  SKIP_THROTTLE_METADATA,
  THROTTLE_METADATA,
  THROTTLE_TIER_METADATA,
} from '../config/sluice.tokens.js';
import type { PolicyDefaults, ThrottleMetadata } from './throttle.decorator.js';

/** What @SkipThrottle and @Throttle say about a handler, its own marks over its class's. */
export interface ThrottleMarks {
  /** Whether the handler or its class carries @Throttle or @SkipThrottle at all. */
  marked: boolean;
  skip: boolean;
  /** The policies named, or undefined when none are. */
  names: readonly string[] | undefined;
  /** The code default @Throttle gives its single policy, if any. */
  defaults: PolicyDefaults | undefined;
  /** `Controller.method`: labels the penalty events the handler's requests set off. */
  route: string;
  /** The tier `@ThrottleTier()` puts the handler's requests at, method over class, if any. */
  tier: string | undefined;
}

/**
 * The one reader of the decorators' metadata, for the guard on each request and the route
 * explorer at start-up. Each handler's marks are read once: decorators are fixed when their
 * classes are defined, and reading them through the Reflector on every request costs more
 * than the rest of a refusal.
 */
@Injectable()
export class ThrottleMetadataAccessor {
  private readonly byHandler = new WeakMap<object, WeakMap<object, ThrottleMarks>>();

  constructor(@Inject(Reflector) private readonly reflector: Reflector) {}

  of(handler: object, controller: Type): ThrottleMarks {
    const byController = getOrAdd(this.byHandler, handler, newWeakMap);
    let marks = byController.get(controller);
    if (marks === undefined) {
      marks = this.read(handler, controller);
      byController.set(controller, marks);
    }
    return marks;
  }

  private read(handler: object, controller: Type): ThrottleMarks {
    const targets = [handler as Type, controller];
    const skip = this.reflector.getAllAndOverride<boolean | undefined>(
      SKIP_THROTTLE_METADATA,
      targets,
    );
    const throttle = this.reflector.getAllAndOverride<ThrottleMetadata | undefined>(
      THROTTLE_METADATA,
      targets,
    );
    const tier = this.reflector.getAllAndOverride<string | undefined>(
      THROTTLE_TIER_METADATA,
      targets,
    );
    return {
      tier,
      marked: skip !== undefined || throttle !== undefined,
      skip: skip === true,
      names: throttle !== undefined && throttle.names.length > 0 ? throttle.names : undefined,
      defaults: throttle?.defaults,
      route: `${controller.name}.${(handler as { name?: string }).name ?? 'handler'}`,
    };
  }
}
