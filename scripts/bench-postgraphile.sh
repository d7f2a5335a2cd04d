#!/usr/bin/env bash
# scripts/bench-postgraphile.sh: runs PostGraphile 4 (bench/postgraphile/server.js) for npm run bench's
# load-board comparison, installing bench/postgraphile first (npm ci --prefix) when its node_modules is
# missing or its lock file changed since. It needs graphql 15, so it stays out of the service's install,
# which keeps a single graphql 16 (docs/decisions/0031-postgraphile-in-the-bench.md). `exec`: the bench
# measures the CPU of this script's process id, which becomes node's.
set -euo pipefail
dir="$(cd "$(dirname "$0")/../bench/postgraphile" && pwd)"
installed="$dir/node_modules/.package-lock.json"
if [ ! -f "$installed" ] || [ "$dir/package-lock.json" -nt "$installed" ]; then
  echo "bench: installing bench/postgraphile (npm ci --prefix bench/postgraphile)" >&2
  npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >&2
fi
exec node "$dir/server.js" "$@"
