#!/usr/bin/env bash
# scripts/lint-tool.sh <tool> [arguments]: runs one of the lint-only tools of tools/lint/package.json
# (Spectral, depcheck, remark, dockerfile-utils), installing them first (scripts/install-apart.sh: npm ci
# --prefix tools/lint) when they are missing or their lock file changed since. `npm install` leaves them
# out, so a newcomer who only starts and tests the service never waits for them
# (docs/decisions/0021-lint-tools-apart.md).
set -euo pipefail
"$(dirname "$0")/install-apart.sh" tools/lint
tool="$1"
shift
exec "$(dirname "$0")/../tools/lint/node_modules/.bin/$tool" "$@"
