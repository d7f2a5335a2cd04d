/**
 * Vitest global setup: `npm run build` before any test runs, so the process tests (which spawn the
 * compiled `node dist/…`, as `npm start` and the CLIs run) never test a stale dist/. The build is
 * incremental: with nothing changed it takes about a second.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function build() {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
}
