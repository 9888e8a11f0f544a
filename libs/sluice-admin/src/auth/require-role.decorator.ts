import { SetMetadata } from '@nestjs/common';
import type { AdminRole } from '../config/admin-auth-options.interface.js';

export const REQUIRED_ROLE_METADATA = 'sluice-admin:required-role';

/** The least role a handler (or every handler of a controller) needs; without it, 'viewer'. */
export const RequireRole = (role: AdminRole): MethodDecorator & ClassDecorator =>
  SetMetadata(REQUIRED_ROLE_METADATA, role);
