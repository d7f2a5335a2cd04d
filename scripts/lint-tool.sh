#!/usr/bin/env bash
# scripts/lint-tool.sh <tool> [arguments]: runs one of the lint-only tools of tools/lint/package.json
# (Spectral, depcheck, remark, dockerfile-utils), installing them first (npm ci --prefix tools/lint) when
# they are missing or their lock file changed since. `npm install` leaves them out, so a newcomer who only
# starts and tests the service never waits for them (docs/decisions/0021-lint-tools-apart.md).
set -euo pipefail
tools="$(cd "$(dirname "$0")/../tools/lint" && pwd)"
installed="$tools/node_modules/.package-lock.json"
if [ ! -f "$installed" ] || [ "$tools/package-lock.json" -nt "$installed" ]; then
  echo "lint tools: installing tools/lint (npm ci --prefix tools/lint)" >&2
  npm ci --prefix "$tools" --no-audit --no-fund --loglevel=error >&2
fi
tool="$1"
shift
exec "$tools/node_modules/.bin/$tool" "$@"
