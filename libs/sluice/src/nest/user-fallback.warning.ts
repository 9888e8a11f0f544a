/**
 * What the guard says, once per route and policy, when a `user` policy found no user and counted
 * the request by its client address: the usual cause is an auth guard that runs after Sluice's
 * (docs/guide.md, "Turning the guard on"); the route shows it too (GET /routes, the panel).
 */
export function userFallbackWarning(route: string, policy: string): string {
  return (
    `Policy "${policy}" (key "user") on ${route} counted a request by its client address: ` +
    'request.user was not set when SluiceGuard ran. If the route has an auth guard of its own, ' +
    "it runs after Sluice's (global guards run before controller guards): leave `global` off " +
    'and write @UseGuards(AuthGuard, SluiceGuard), or authenticate in middleware. An ' +
    'anonymous request is counted by address by design; this is said once per route.'
  );
}
