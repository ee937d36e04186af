#!/bin/sh
# Container entrypoint for every TruthLens process (web, workers, beat, migrations).
# RUN_MIGRATIONS=1 applies migrations before the command; nothing else ever migrates,
# so replicas never race each other on the schema.
set -eu

if [ -n "${PROMETHEUS_MULTIPROC_DIR:-}" ]; then
  # Samples left by a previous run of this container would be summed into the new one.
  rm -rf "${PROMETHEUS_MULTIPROC_DIR}"
  mkdir -p "${PROMETHEUS_MULTIPROC_DIR}"
fi
mkdir -p "${XDG_CACHE_HOME:-/tmp/cache}" 2>/dev/null || true

if [ "${RUN_MIGRATIONS:-0}" = "1" ]; then
  python /app/manage.py migrate --noinput
fi

exec "$@"
