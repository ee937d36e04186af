#!/usr/bin/env bash
# Install a Docker engine and debootstrap for the `containers` test and `make deploy-smoke`,
# if they are missing: Debian's packages (apt-get install docker.io debootstrap). No daemon
# is started here; deploy/dockerd.sh starts one, without a bridge, when a run needs it.
set -uo pipefail
command -v dockerd >/dev/null && command -v debootstrap >/dev/null && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  apt-get update -qq \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io debootstrap >/dev/null \
    && exit 0
fi
echo "no Docker engine: the containers test will be skipped (CI fails it instead)." >&2
exit 0
