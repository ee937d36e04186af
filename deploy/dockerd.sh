#!/usr/bin/env bash
# Start dockerd if it is not answering, WITHOUT a bridge network: every container then runs
# with the host's network (`network_mode: host`), so all traffic stays on loopback and no
# private address range is ever created or addressed. Log: build/dockerd.log.
set -euo pipefail
cd "$(dirname "$0")/.."

if docker info >/dev/null 2>&1; then
  exit 0
fi
command -v dockerd >/dev/null || {
  echo "no dockerd: apt-get install docker.io (Debian) or install Docker Engine" >&2
  exit 1
}
[ "$(id -u)" = "0" ] || {
  echo "dockerd is not running and only root can start it here" >&2
  exit 1
}
mkdir -p build
# setsid: the daemon must outlive the shell (and the test) that started it.
setsid dockerd --bridge=none --iptables=false --ip-masq=false >>build/dockerd.log 2>&1 </dev/null &
for _ in $(seq 1 60); do
  docker info >/dev/null 2>&1 && exit 0
  sleep 1
done
echo "dockerd did not answer within 60 s; see build/dockerd.log" >&2
exit 1
