import type { Actor } from './actor.js';

/** Who the audit names for changes the admin makes itself, such as seeding code defaults. */
export const SYSTEM_ACTOR: Actor = { name: 'system', role: 'admin', ip: null, userAgent: null };
