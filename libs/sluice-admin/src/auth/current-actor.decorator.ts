import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { actorOf, type Actor } from '../common/actor.js';

/** The Actor AdminAuthGuard authenticated, for handlers that record who did what. */
export const CurrentActor = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Actor => {
    const actor = actorOf(context.switchToHttp().getRequest<object>());
    if (actor === undefined) {
      throw new Error('@CurrentActor() needs AdminAuthGuard on the route (it sets the actor)');
    }
    return actor;
  },
);
