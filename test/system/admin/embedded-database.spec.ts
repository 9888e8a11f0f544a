import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedDatabase } from '@sluice/admin/src/database/embedded.database.js';

const parent = mkdtempSync(join(tmpdir(), 'sluice-embedded-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

/** Every path under `directory` with the permission bits anyone but the owner has. */
function openToOthers(directory: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    if ((statSync(at).mode & 0o077) !== 0) found.push(at);
    if (statSync(at).isDirectory()) for (const name of readdirSync(at)) walk(join(at, name));
  };
  walk(directory);
  return found;
}

describe('startEmbeddedDatabase', () => {
  it('keeps its data directory and every file in it to the owner', async () => {
    const dataDir = join(parent, 'fresh');
    const database = await startEmbeddedDatabase({ dataDir });
    await database.stop();
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dataDir).length).toBeGreaterThan(0);
    expect(openToOthers(dataDir)).toEqual([]);
  }, 60_000);

  it('closes a data directory an earlier run left open to others', async () => {
    const dataDir = join(parent, 'loose');
    mkdirSync(dataDir, { mode: 0o777 });
    chmodSync(dataDir, 0o777);
    writeFileSync(join(dataDir, 'left-behind'), 'x', { mode: 0o666 });
    chmodSync(join(dataDir, 'left-behind'), 0o666);
    const database = await startEmbeddedDatabase({ dataDir });
    await database.stop();
    expect(openToOthers(dataDir)).toEqual([]);
  }, 60_000);
});
