#!/usr/bin/env bash
# Install a Compose CLI for `tests/deploy` (`docker-compose config` resolves deploy/compose.yaml
# offline: no daemon, no image, no network), if none is present: Debian's docker-compose.
set -uo pipefail
docker compose version >/dev/null 2>&1 && exit 0
command -v docker-compose >/dev/null && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose >/dev/null && exit 0
fi
echo "no Compose CLI: the compose config test will be skipped (CI fails it instead)." >&2
exit 0
