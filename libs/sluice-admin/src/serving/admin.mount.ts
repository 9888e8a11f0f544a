import { RequestMethod } from '@nestjs/common';

/** What the admin reads of Nest's ApplicationConfig: the app's global prefix and exclusions. */
export interface GlobalPrefixSource {
  getGlobalPrefix(): string;
  getGlobalPrefixOptions(): { exclude?: ExcludedRoute[] };
}

/** One `exclude` entry of setGlobalPrefix, as Nest 11 and 12 keep it. */
interface ExcludedRoute {
  requestMethod?: RequestMethod | number;
  pathRegex?: RegExp;
}

/**
 * Where the admin is served once the app's global prefix applies: the admin's routes follow the
 * prefix as every controller does, unless `exclude` covers them. The panel is served at the same
 * place, so it finds its API one segment down (docs/operations.md, "Where the admin lives").
 * Returns the mount with a leading slash and no trailing one: '/sluice' or '/api/sluice'.
 */
export function adminMount(path: string, config: GlobalPrefixSource | undefined): string {
  const prefix = (config?.getGlobalPrefix() ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix === '') return `/${path}`;
  const probe = `/${path}/api/session`;
  const excluded = (config?.getGlobalPrefixOptions().exclude ?? []).some(
    (route) =>
      [undefined, -1, Number(RequestMethod.ALL), Number(RequestMethod.GET)].includes(
        route.requestMethod === undefined ? undefined : Number(route.requestMethod),
      ) &&
      route.pathRegex instanceof RegExp &&
      route.pathRegex.test(probe),
  );
  return excluded ? `/${path}` : `/${prefix}/${path}`;
}
