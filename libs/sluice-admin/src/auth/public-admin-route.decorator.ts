import { SetMetadata } from '@nestjs/common';

export const PUBLIC_ADMIN_ROUTE_METADATA = 'sluice-admin:public-route';

/** Lets a request through AdminAuthGuard unauthenticated: only the sign-in itself needs this. */
export const PublicAdminRoute = (): MethodDecorator & ClassDecorator =>
  SetMetadata(PUBLIC_ADMIN_ROUTE_METADATA, true);
