import type { PolicyView } from '@sluice/admin/api';

/** An admin-only policy: `limit` requests a minute per client address. */
export const quota = (limit: number) => ({
  algorithm: 'fixed-window',
  limit,
  periodMs: 60_000,
  key: 'ip',
});

/** A policy as GET returns it, made into a PUT body again. */
export function asBody(view: PolicyView): Omit<PolicyView, 'routes' | 'codeDefault'> {
  const body: Partial<PolicyView> = { ...view };
  delete body.routes;
  delete body.codeDefault;
  return body as Omit<PolicyView, 'routes' | 'codeDefault'>;
}
