import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PanelFiles } from './panel.files.js';

const root = mkdtempSync(join(tmpdir(), 'sluice-panel-'));
mkdirSync(join(root, 'assets'));
writeFileSync(join(root, 'index.html'), '<head></head><div id="root"></div>');
writeFileSync(join(root, 'assets/index-abc.js'), 'console.log(1)');
writeFileSync(join(root, 'favicon.svg'), '<svg/>');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const files = new PanelFiles(root, 'ops/sluice');

describe('PanelFiles', () => {
  it('redirects the mount without its slash, relative to it, keeping the query', () => {
    // Relative, so a proxy that serves the app under a sub-path of its own keeps it.
    expect(files.reply('GET', '/ops/sluice?tab=1')).toEqual({
      status: 301,
      headers: { location: 'sluice/?tab=1' },
    });
  });

  it("serves index.html at the mount and for any route of the panel, based at the panel's root", () => {
    for (const [url, base] of [
      ['/ops/sluice/', './'],
      ['/ops/sluice/index.html', './'],
      ['/ops/sluice/policies', './'],
      ['/ops/sluice/policies/', '../'],
      ['/ops/sluice/policies/reply', '../'],
      ['/ops/sluice/policies/reply/revisions', '../../'],
    ]) {
      const reply = files.reply('GET', url!);
      expect(reply?.status, url).toBe(200);
      expect(reply?.body?.toString(), url).toBe(
        `<head><base href="${base}"></head><div id="root"></div>`,
      );
      expect(reply?.headers['cache-control']).toBe('no-cache');
    }
  });

  it('resolves the base to the mount from every depth', () => {
    for (const url of ['/ops/sluice/', '/ops/sluice/a', '/ops/sluice/a/b', '/ops/sluice/a/b/c/']) {
      const body = files.reply('GET', url)?.body?.toString() ?? '';
      const base = /<base href="([^"]*)">/.exec(body)?.[1] ?? '';
      expect(new URL(base, `http://host/proxy${url}`).pathname, url).toBe('/proxy/ops/sluice/');
    }
  });

  it('serves built files with their type, hashed assets cached for good', () => {
    const script = files.reply('GET', '/ops/sluice/assets/index-abc.js');
    expect(script?.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script?.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(files.reply('GET', '/ops/sluice/favicon.svg')?.headers['content-type']).toBe(
      'image/svg+xml',
    );
  });

  it('sends every page under a CSP without inline script, unframeable, nosniff, no referrer', () => {
    const { headers } = files.reply('GET', '/ops/sluice/')!;
    const policy = headers['content-security-policy'] ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['referrer-policy']).toBe('no-referrer');
  });

  it('answers HEAD without a body', () => {
    const reply = files.reply('HEAD', '/ops/sluice/');
    expect(reply?.status).toBe(200);
    expect(reply?.body).toBeUndefined();
    const page = files.reply('GET', '/ops/sluice/')?.body;
    expect(reply?.headers['content-length']).toBe(String(page?.length));
    expect(page?.length).toBeGreaterThan(0);
  });

  it("leaves the API, missing files, other methods, other paths and traversal to the app's router", () => {
    for (const [method, url] of [
      ['GET', '/ops/sluice/api/policies'],
      ['GET', '/ops/sluice/api'],
      ['GET', '/ops/sluice/assets/missing.js'],
      ['POST', '/ops/sluice/'],
      ['GET', '/ops/sluicex'],
      ['GET', '/other'],
      ['GET', '/ops/sluice/%E0%A4%A'],
      ['GET', '/ops/sluice/..%2F..%2Fpackage.json'],
    ] as const) {
      expect(files.reply(method, url), `${method} ${url}`).toBeUndefined();
    }
  });
});
