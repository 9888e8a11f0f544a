/**
 * Where the panel is served, ending in a slash: found from the page itself, never built in.
 * The build's base is './' and the server gives index.html a <base> pointing at the panel's root
 * (docs/operations.md, "Where the admin lives"), so this follows the app's global prefix, the
 * admin's `path` and a proxy's sub-path alike; Vite's dev server serves it at /sluice/.
 */
export const PANEL_BASE = new URL(import.meta.env.BASE_URL, document.baseURI).pathname;

/** The admin API, one segment below the panel. */
export const API_BASE = `${PANEL_BASE}api`;
