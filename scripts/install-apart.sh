#!/usr/bin/env bash
# scripts/install-apart.sh <folder>: installs a folder that keeps its own package.json and lock file apart
# from `npm install` (npm ci --prefix <folder>) when its node_modules is missing or its lock file changed
# since. Used by scripts/lint-tool.sh for tools/lint (docs/decisions/0021-lint-tools-apart.md) and by
# scripts/bench-postgraphile.sh for bench/postgraphile (docs/decisions/0031-postgraphile-in-the-bench.md).
set -euo pipefail
dir="$(cd "$(dirname "$0")/../$1" && pwd)"
installed="$dir/node_modules/.package-lock.json"
if [ ! -f "$installed" ] || [ "$dir/package-lock.json" -nt "$installed" ]; then
  echo "installing $1 (npm ci --prefix $1)" >&2
  npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >&2
fi
