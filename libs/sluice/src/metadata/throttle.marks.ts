import type { Type } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { getOrAdd, newWeakMap } from '../collections/get-or-add.js';
import { SKIP_THROTTLE_METADATA, THROTTLE_METADATA } from '../config/sluice.tokens.js';
import type { ThrottleMetadata } from './throttle.decorator.js';

/** What @SkipThrottle and @Throttle say about a handler, its own marks over its class's. */
export interface ThrottleMarks {
  skip: boolean;
  /** The policies named, or undefined when none are. */
  names: readonly string[] | undefined;
  /** `Controller.method`: labels the penalty events the handler's requests set off. */
  route: string;
}

/**
 * Reads each handler's marks once: decorators are fixed when their classes are defined, and
 * reading them through the Reflector on every request costs more than the rest of a refusal.
 */
export class ThrottleMarksCache {
  private readonly byHandler = new WeakMap<object, WeakMap<object, ThrottleMarks>>();

  constructor(private readonly reflector: Reflector) {}

  of(handler: object, controller: Type): ThrottleMarks {
    const byController = getOrAdd(this.byHandler, handler, newWeakMap);
    let marks = byController.get(controller);
    if (marks === undefined) {
      const targets = [handler as Type, controller];
      const skip = this.reflector.getAllAndOverride<boolean>(SKIP_THROTTLE_METADATA, targets);
      const throttle = this.reflector.getAllAndOverride<ThrottleMetadata>(
        THROTTLE_METADATA,
        targets,
      );
      marks = {
        skip: skip === true,
        names: throttle !== undefined && throttle.names.length > 0 ? throttle.names : undefined,
        route: `${controller.name}.${(handler as { name?: string }).name ?? 'handler'}`,
      };
      byController.set(controller, marks);
    }
    return marks;
  }
}
