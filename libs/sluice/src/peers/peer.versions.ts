import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { readFileSync, existsSync } from 'node:fs';
import { SluiceStartError } from './start.error.js';

/**
 * The majors of each peer that Sluice is tested with (docs/packaging.md), as package.json's
 * peerDependencies state them; `minimum` is the oldest release of the lowest major.
 */
export const SUPPORTED_PEERS: Record<string, { majors: number[]; minimum: string }> = {
  '@nestjs/core': { majors: [11, 12], minimum: '11.0.0' },
  '@nestjs/common': { majors: [11, 12], minimum: '11.0.0' },
  ioredis: { majors: [5, 6], minimum: '5.9.0' },
  '@opentelemetry/api': { majors: [1], minimum: '1.9.0' },
};

const requireHere = createRequire(import.meta.url);

/** The installed version of a package, or undefined when it is not installed. */
export function installedVersion(name: string): string | undefined {
  let entry: string;
  try {
    entry = requireHere.resolve(name);
  } catch {
    return undefined;
  }
  // A package's exports may hide its package.json: walk up from its entry to the one named so.
  for (let at = dirname(entry); dirname(at) !== at; at = dirname(at)) {
    const manifest = join(at, 'package.json');
    if (!existsSync(manifest)) continue;
    const { name: found, version } = JSON.parse(readFileSync(manifest, 'utf8')) as {
      name?: string;
      version?: string;
    };
    if (found === name) return version;
  }
  return undefined;
}

/** Why `version` of `name` is not supported, or undefined when it is. */
export function unsupportedVersion(name: string, version: string): string | undefined {
  const supported = SUPPORTED_PEERS[name];
  if (supported === undefined) return undefined;
  const parts = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  const [major, minor, patch] = (parts?.slice(1) ?? []).map(Number) as [number, number, number];
  const [minMajor, minMinor, minPatch] = supported.minimum.split('.').map(Number) as [
    number,
    number,
    number,
  ];
  const tooOld =
    major < minMajor ||
    (major === minMajor && (minor < minMinor || (minor === minMinor && patch < minPatch)));
  if (parts !== null && supported.majors.includes(major) && !tooOld) return undefined;
  const range = supported.majors.map((each) => `${each}.x`).join(' or ');
  return `Sluice supports ${name} ${range} (from ${supported.minimum}), and ${version} is installed: npm install ${name}@${supported.majors.at(-1)}`;
}

/** Fails the start with one line when an installed peer's version is one Sluice is not tested with. */
export function assertPeerVersions(names: readonly string[]): void {
  for (const name of names) {
    const version = installedVersion(name);
    const problem = version === undefined ? undefined : unsupportedVersion(name, version);
    if (problem !== undefined) throw new SluiceStartError(problem);
  }
}
