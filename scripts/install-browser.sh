#!/usr/bin/env bash
# Install Debian's Chromium for the dashboard browser tests, if it is missing.
# Never a browser downloaded by a test tool (no `playwright install`).
set -uo pipefail
command -v chromium >/dev/null && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null && exit 0
fi
echo "chromium is not installed: the browser tests will be skipped (CI fails them instead)." >&2
exit 0
