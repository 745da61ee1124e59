#!/usr/bin/env bash
# Prepares a Debian/Ubuntu machine (or an already prepared one) to run the service or its tests:
# system packages, npm dependencies, PostgreSQL + PostGIS and Redis running, the database created and migrated.
# Idempotent: every step checks first and does nothing when it is already done.
set -euo pipefail
cd "$(dirname "$0")/.."

export DATABASE_URL="${DATABASE_URL:-postgres://postgres:postgres@127.0.0.1:5432/arcgis}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"

log() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

pg_version() { ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1; }

apt_install() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]}"
  if [ -z "${APT_UPDATED:-}" ]; then $SUDO apt-get update -q; APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
}

INSTALLED_PG=""
system_packages() {
  command -v apt-get >/dev/null || { log "no apt-get: install PostgreSQL+PostGIS, Redis and GDAL yourself"; return 0; }
  if [ -z "$(pg_version)" ]; then apt_install postgresql postgresql-contrib; INSTALLED_PG=1; fi
  command -v redis-server >/dev/null || apt_install redis-server
  command -v npm >/dev/null || apt_install npm # fetches the pinned Node.js 24 when the machine's is older (env.sh)
  apt_install "postgresql-$(pg_version)-postgis-3" libgdal-dev gdal-bin
}

pg_up() { pg_isready -q -d "$DATABASE_URL" 2>/dev/null; }

start_postgres() {
  pg_up && return 0
  local v; v="$(pg_version)"
  log "starting PostgreSQL $v"
  if command -v pg_ctlcluster >/dev/null; then
    $SUDO pg_ctlcluster --skip-systemctl-redirect "$v" main start 2>/dev/null || $SUDO pg_ctlcluster "$v" main start
  else
    $SUDO service postgresql start
  fi
  for _ in $(seq 1 30); do pg_up && break; sleep 1; done
  pg_up || { echo "PostgreSQL does not answer at $DATABASE_URL" >&2; exit 1; }
  # A cluster this script just installed only allows peer login; give the postgres role the password the default URL uses.
  if [ -n "$INSTALLED_PG" ]; then
    $SUDO -u postgres psql -q -c "ALTER ROLE postgres PASSWORD 'postgres'" >/dev/null 2>&1 || \
      runuser -u postgres -- psql -q -c "ALTER ROLE postgres PASSWORD 'postgres'" >/dev/null
  fi
}

start_redis() {
  local hostport="${REDIS_URL#*://}"; hostport="${hostport##*@}"; hostport="${hostport%%/*}"
  local host="${hostport%%:*}" port="${hostport##*:}"
  [ "$port" = "$host" ] && port=6379
  redis-cli -h "$host" -p "$port" ping >/dev/null 2>&1 && return 0
  log "starting Redis on $host:$port"
  redis-server --daemonize yes --bind "$host" --port "$port" --save "" --appendonly no >/dev/null
  for _ in $(seq 1 20); do redis-cli -h "$host" -p "$port" ping >/dev/null 2>&1 && return 0; sleep 0.5; done
  echo "Redis does not answer at $REDIS_URL" >&2; exit 1
}

create_database() {
  local db="${DATABASE_URL##*/}"; db="${db%%\?*}"
  local server="${DATABASE_URL%/*}/postgres"
  if [ "$(psql "$server" -tAc "SELECT 1 FROM pg_database WHERE datname = '$db'")" != "1" ]; then
    log "creating database $db"
    psql "$server" -q -c "CREATE DATABASE \"$db\""
  fi
}

# node_modules/.node-abi records the ABI of the node that installed node_modules: addons built for another major
# version do not load, so a change of Node.js reinstalls them like a newer lock file does.
npm_deps() {
  local abi; abi="$(node -p process.versions.modules)"
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ] ||
    [ "$(cat node_modules/.node-abi 2>/dev/null)" != "$abi" ]; then
    log "npm ci with Node.js $(node --version) (ABI $abi)"
    npm ci --ignore-scripts --no-audit --no-fund
    build_gdal
    echo "$abi" >node_modules/.node-abi
  fi
}

# npm runs no install script: package.json's allowScripts denies all five (and --ignore-scripts covers an npm older
# than allowScripts). esbuild, koffi and msgpackr-extract load the binaries of their platform packages, Vaadin's counts
# usage, and gdal-async's would fetch a binary or build its bundled GDAL, both lacking the PostgreSQL and XLSX drivers.
# It is built here against the system GDAL (libgdal-dev), its one switch a gyp define rather than an npm_config_*
# variable, which npm (run by its build, too) warns it does not know.
build_gdal() {
  log "building gdal-async against the system GDAL"
  (cd node_modules/gdal-async && PATH="$PWD/node_modules/.bin:$PATH" GYP_DEFINES=shared_gdal=true \
    node-pre-gyp install --build-from-source -j max)
}

# A gdal-async linked to its own GDAL (lacking PostgreSQL and XLSX) would only show when the worker refuses to start.
check_gdal() {
  node -r ts-node/register/transpile-only src/gdal-check.ts || {
    echo "Rebuild with: rm node_modules/.node-abi && bash scripts/setup.sh" >&2
    exit 1
  }
}

system_packages
source scripts/env.sh
start_postgres
start_redis
npm_deps
check_gdal
create_database
log "migrating"
# From the TypeScript sources: nothing is built yet (`npm run migrate` runs the compiled dist/ormconfig.js).
npm run --silent migrate:dev >/dev/null
log "ready: DATABASE_URL=$DATABASE_URL REDIS_URL=$REDIS_URL"
