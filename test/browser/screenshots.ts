/**
 * Where the browser tests save their screenshots: a fresh temporary folder, so `npm run test:browser`
 * leaves the tracked files alone; `npm run screenshots` runs the same tests with `SCREENSHOTS_DIR` set
 * to `docs/screenshots/`, the pictures the docs show (CONTRIBUTING.md, "Tests").
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The folder for this test file's screenshots (created), and the path of one of them. */
export function screenshotFolder(): { dir: string; path(name: string): string } {
  const wanted = process.env.SCREENSHOTS_DIR;
  const dir = wanted ? resolve(wanted) : mkdtempSync(join(tmpdir(), 'tms-ingest-screenshots-'));
  mkdirSync(dir, { recursive: true });
  return { dir, path: (name) => join(dir, name) };
}
