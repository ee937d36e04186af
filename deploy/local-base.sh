#!/usr/bin/env bash
# Build the local base image truthlens/base:bookworm from Debian's packages, for machines
# that reach Debian's archive but no image registry. It stands in for python:3.11-slim:
#
#   bash deploy/local-base.sh                     # prints the image name
#   docker build --build-arg BASE_IMAGE=truthlens/base:bookworm -f deploy/docker/Dockerfile .
#
# bookworm's python3 is 3.11, the same minor version as the public image. The root
# filesystem is cached as a tarball under build/ (gitignored), so a rebuild after
# `docker rmi` or on a fresh dockerd is an import of a few seconds, not a debootstrap.
# Set DEBIAN_MIRROR to use another archive than debootstrap's default.
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE="${LOCAL_BASE_IMAGE:-truthlens/base:bookworm}"
CACHE_DIR="${LOCAL_BASE_CACHE:-build/base}"
# Only what python:3.11-slim has that the app needs: an interpreter with venv and pip's
# ensurepip, CA certificates for TLS, and tzdata. The version is part of the cache key.
PACKAGES="python3,python3-venv,ca-certificates,tzdata"
KEY="bookworm-minbase-v1"
TARBALL="${CACHE_DIR}/${KEY}.tar"

if [ "${1:-}" != "--force" ] && docker image inspect "$IMAGE" >/dev/null 2>&1; then
  echo "$IMAGE"
  exit 0
fi

if [ ! -s "$TARBALL" ] || [ "${1:-}" = "--force" ]; then
  command -v debootstrap >/dev/null || {
    echo "debootstrap is missing: apt-get install debootstrap" >&2
    exit 1
  }
  mkdir -p "$CACHE_DIR"
  root="$(mktemp -d "${CACHE_DIR}/rootfs.XXXXXX")"
  trap 'rm -rf "$root"' EXIT
  # shellcheck disable=SC2086
  debootstrap --variant=minbase --include="$PACKAGES" bookworm "$root" ${DEBIAN_MIRROR:-} >&2
  # The public image calls the interpreter `python`; the Dockerfiles and Compose do too.
  ln -sf /usr/bin/python3 "$root/usr/local/bin/python"
  # An image needs no package lists or downloaded .debs; apt-get update refills them.
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/tmp/*
  tar -C "$root" --numeric-owner -cf "$TARBALL.tmp" .
  mv "$TARBALL.tmp" "$TARBALL"
fi

docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'CMD ["python3"]' \
  "$TARBALL" "$IMAGE" >/dev/null
echo "$IMAGE"
