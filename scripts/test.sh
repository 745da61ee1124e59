#!/usr/bin/env bash
# Sets everything up and runs the whole test suite (unit, end-to-end, client compatibility) against
# real PostgreSQL and Redis; each run creates and drops a database of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
# The client compatibility suites drive real clients: Debian's Chromium (through playwright-core) and QGIS; Excel
# workbooks are also read back by openpyxl (what pandas reads them with); nginx is the shared cache the cache-safety
# suite puts in front of the API (test/e2e/shared-cache.spec.ts starts its own, unprivileged).
command -v apt-get >/dev/null && apt_install chromium fonts-liberation python3-qgis qgis-providers python3-openpyxl nginx-light
export TEST_PG_URL="${TEST_PG_URL:-${DATABASE_URL%/*}/postgres}"
# ts-jest only transpiles, so types are checked once here; then the lint gate (any warning fails).
npm run --silent typecheck
npm run --silent lint
npm test -- "$@"
