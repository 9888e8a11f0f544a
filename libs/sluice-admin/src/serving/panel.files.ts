import { readFileSync, readdirSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';

/** What a request under /<path> is answered with; `undefined` leaves it to the app's router. */
export interface PanelReply {
  status: number;
  headers: Record<string, string>;
  body?: Buffer;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/**
 * The panel's scripts and styles are files of its own build: no inline script runs, nothing is
 * fetched from elsewhere, and no other site may frame it (its switches act on a click).
 * React and the component library set styles inline, hence style-src 'unsafe-inline'.
 * docs/security.md lists each header.
 */
export const PANEL_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** Vite names every file under assets/ by its content, so a browser may keep it for good. */
const HASHED = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

interface PanelFile {
  body: Buffer;
  type: string;
  cache: string;
}

/**
 * The built panel, read once at start: a few files of at most a megabyte. Only the files found
 * here are ever served, so no request path can reach outside the folder.
 */
export class PanelFiles {
  private readonly files = new Map<string, PanelFile>();
  /** index.html with a <base> for each depth of the panel's own routes, made once each. */
  private readonly pages = new Map<number, PanelFile>();

  constructor(
    root: string,
    /**
     * Where the panel is served, without slashes: 'sluice', 'ops/sluice', or with the app's
     * global prefix 'api/sluice' (PanelServer sets it once the prefix is known).
     */
    public path: string,
  ) {
    for (const file of walk(root)) {
      const name = relative(root, file).split(sep).join('/');
      this.files.set(name, {
        body: readFileSync(file),
        type: CONTENT_TYPES[extname(name)] ?? 'application/octet-stream',
        cache: name.startsWith('assets/') ? HASHED : REVALIDATE,
      });
    }
    if (!this.files.has('index.html')) throw new Error(`${root} has no index.html`);
  }

  /**
   * `/<path>` redirects to `/<path>/` (the panel's relative URLs need the slash); a file of the
   * build is served as it is; any other path that names no file is a route of the panel, answered
   * with index.html. The API's paths, and missing files with an extension, are the router's.
   * Nothing absolute is sent: the redirect and index.html's <base> are relative to the request,
   * so the panel works behind a proxy that serves the app under a sub-path of its own.
   */
  reply(method: string, url: string): PanelReply | undefined {
    if (method !== 'GET' && method !== 'HEAD') return undefined;
    const query = url.indexOf('?');
    const pathname = query < 0 ? url : url.slice(0, query);
    const mount = `/${this.path}`;
    if (pathname === mount) {
      const search = query < 0 ? '' : url.slice(query);
      const last = mount.slice(mount.lastIndexOf('/') + 1);
      return { status: 301, headers: { location: `${last}/${search}` } };
    }
    if (!pathname.startsWith(`${mount}/`)) return undefined;
    const rest = pathname.slice(mount.length + 1);
    const name = safeDecode(rest);
    if (name === undefined || name === 'api' || name.startsWith('api/')) return undefined;
    const file = name === '' || name === 'index.html' ? undefined : this.files.get(name);
    if (file !== undefined) return this.send(file, method);
    if (name !== '' && name !== 'index.html' && extname(name) !== '') return undefined;
    return this.send(this.page(rest.split('/').length - 1), method);
  }

  /** index.html whose <base> points `depth` folders up, at the panel's root. */
  private page(depth: number): PanelFile {
    let page = this.pages.get(depth);
    if (page === undefined) {
      const index = this.files.get('index.html')!;
      const base = depth === 0 ? './' : '../'.repeat(depth);
      const html = index.body.toString('utf8').replace(/<head>/i, `<head><base href="${base}">`);
      page = { ...index, body: Buffer.from(html) };
      // A path made deep on purpose gets its page made anew, not kept.
      if (depth <= 16) this.pages.set(depth, page);
    }
    return page;
  }

  private send(file: PanelFile, method: string): PanelReply {
    const headers = {
      ...PANEL_SECURITY_HEADERS,
      'content-type': file.type,
      'content-length': String(file.body.length),
      'cache-control': file.cache,
    };
    return { status: 200, headers, ...(method === 'GET' ? { body: file.body } : {}) };
  }
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

function walk(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}
