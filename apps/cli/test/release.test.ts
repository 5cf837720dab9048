import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const manifest = (path: string) => JSON.parse(read(path)) as { name: string; version: string; license: string; workspaces?: string[] };

/** Every workspace's package.json, found from the root's `workspaces` globs (`apps/*`, `packages/*`). */
function workspaceManifests(): string[] {
  return manifest('package.json').workspaces!.flatMap((pattern) => {
    const folder = pattern.replace(/\/\*$/, '');
    return readdirSync(join(root, folder))
      .map((name) => `${folder}/${name}/package.json`)
      .filter((path) => existsSync(join(root, path)));
  });
}

describe('release', () => {
  it('gives the service and every workspace one version and the Apache-2.0 license', () => {
    const { version, license } = manifest('package.json');
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(license).toBe('Apache-2.0');
    const workspaces = workspaceManifests();
    expect(workspaces).toEqual(expect.arrayContaining(['apps/api/package.json', 'apps/cli/package.json', 'packages/domain/package.json']));
    for (const path of workspaces) {
      expect({ path, version: manifest(path).version, license: manifest(path).license }).toEqual({ path, version, license });
    }
  });

  it('ships the Apache License 2.0 and a changelog whose latest release is that version', () => {
    const text = read('LICENSE');
    expect(
      text
        .trim()
        .split('\n')
        .slice(0, 3)
        .map((line) => line.trim()),
    ).toEqual(['Apache License', 'Version 2.0, January 2004', 'http://www.apache.org/licenses/']);
    expect(text).toContain('TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION');
    expect(text).toContain('END OF TERMS AND CONDITIONS');
    const releases = [...read('CHANGELOG.md').matchAll(/^## \[(.+?)\]/gm)].map((match) => match[1]);
    expect(releases.slice(0, 2)).toEqual(['Unreleased', manifest('package.json').version]);
  });
});
