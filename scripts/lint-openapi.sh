#!/usr/bin/env bash
# npm run lint:openapi: writes the served OpenAPI document to a temporary file, then lints it with
# Redocly and Spectral (their recommended rules; redocly.yaml and .spectral.yaml; Spectral is one of the
# lint-only tools of tools/lint, see scripts/lint-tool.sh). Both run offline:
# no telemetry, no update checks, no remote rulesets. Any error or warning fails.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
npx tsx src/cli/print-openapi.ts "$dir/openapi.json"
cp redocly.yaml "$dir/"

export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
redocly_out="$(npx redocly lint --config "$dir/redocly.yaml" --max-problems 1000 "$dir/openapi.json" 2>&1)" || { echo "$redocly_out"; exit 1; }
echo "$redocly_out"
if grep -Eq 'You have [0-9]+ warnings?' <<<"$redocly_out"; then echo 'redocly: warnings are failures here'; exit 1; fi

scripts/lint-tool.sh spectral lint --ruleset .spectral.yaml --fail-severity warn "$dir/openapi.json"
