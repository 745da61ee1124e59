#!/usr/bin/env bash
# Sets everything up, builds, and runs the API and one worker until Ctrl-C (or SIGTERM), which stops both.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
npm run --silent build
export ADMIN_USERNAME="${ADMIN_USERNAME:-admin}"
if [ -z "${ADMIN_PASSWORD:-}" ]; then
  export ADMIN_PASSWORD="change-me-$(head -c6 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  echo "[start] first administrator (created only if there are no users yet): $ADMIN_USERNAME / $ADMIN_PASSWORD"
fi
# Fewer malloc arenas and fixed mmap/trim thresholds keep the worker's memory from growing export after export, and
# a small young generation keeps it lower throughout (see src/export/writer/README.md, Memory). The API's small young
# generation keeps both its memory and its CPU per request lower (docs/operations.md, Memory).
MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072 node --max-semi-space-size=4 --heap-growing-percent=50 dist/src/worker.js &
WORKER=$!
node --max-semi-space-size=4 dist/src/main.js &
API=$!
trap 'kill -TERM $API $WORKER 2>/dev/null; wait' INT TERM
echo "[start] API on http://localhost:${PORT:-3000}${CONTEXT_PATH:-}/sharing/rest (pid $API), worker pid $WORKER"
wait -n $API $WORKER
kill -TERM $API $WORKER 2>/dev/null || true
wait
