#!/usr/bin/env bash
# Start local PostgreSQL and Redis if they are installed here but not running.
set -uo pipefail
if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  if command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ]; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
  fi
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  if command -v redis-server >/dev/null; then
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no || true
  fi
fi
for _ in $(seq 1 30); do
  pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null && redis-cli -h 127.0.0.1 ping >/dev/null 2>&1 && exit 0
  sleep 1
done
echo "PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379) must be running; set DATABASE_URL/REDIS_URL otherwise." >&2
exit 1
