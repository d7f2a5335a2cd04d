#!/usr/bin/env bash
# scripts/bench-postgraphile.sh: runs PostGraphile 4 (bench/postgraphile/server.js) for npm run bench's
# load-board comparison, installing bench/postgraphile first (scripts/install-apart.sh: npm ci --prefix)
# when its node_modules is missing or its lock file changed since. It needs graphql 15, so it stays out
# of the service's install, which keeps a single graphql 16 (docs/decisions/0031-postgraphile-in-the-bench.md).
# `exec`: the bench measures the CPU of this script's process id, which becomes node's.
set -euo pipefail
"$(dirname "$0")/install-apart.sh" bench/postgraphile
exec node "$(dirname "$0")/../bench/postgraphile/server.js" "$@"
