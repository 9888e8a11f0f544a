import type { AdminRole } from './admin-role.js';

/** Who made an admin request, as the audit records it. */
export interface Actor {
  /** The credential's name. */
  name: string;
  /** The credential's role. */
  role: AdminRole;
  /** The client address the request came from, or null when it cannot be read. */
  ip: string | null;
  /** The request's User-Agent, or null. */
  userAgent: string | null;
}

const ACTOR = Symbol('sluice-admin:actor');

type CarriesActor = { [ACTOR]?: Actor };

export function attachActor(request: object, actor: Actor): void {
  (request as CarriesActor)[ACTOR] = actor;
}

export function actorOf(request: object): Actor | undefined {
  return (request as CarriesActor)[ACTOR];
}
