#!/usr/bin/env bash
# The Dockerfile's base image made on this machine, where no container registry is reachable: the pinned Node
# (node_modules/node, the version package.json names), Debian's npm, a shell and the few tools the Dockerfile's RUN
# lines use, each with the shared libraries ldd lists, and a `node` user (uid 1000) as in the official image.
# Prints the image's name. Usage: .ci/base-image.sh [NAME]
set -euo pipefail
cd "$(dirname "$0")/.."
# Named by what goes into it, so an unchanged base is not made again and podman's layer cache holds for the
# Dockerfile's steps (its `npm ci` runs again only when package-lock.json changes).
key="$(cat node_modules/node/bin/node /usr/lib/node_modules/npm/package.json "$0" | sha256sum | cut -c1-12)"
name="${1:-localhost/cobro-node:$key}"
if podman image exists "$name"; then
  echo "$name"
  exit 0
fi
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT

copy_with_libs() {
  for bin in "$@"; do
    mkdir -p "$root$(dirname "$bin")"
    cp -L "$bin" "$root$bin"
    ldd "$bin" 2>/dev/null | grep -o '/[^ ]*' | while read -r lib; do
      mkdir -p "$root$(dirname "$lib")"
      [ -e "$root$lib" ] || cp -L "$lib" "$root$lib"
    done
  done
}

mkdir -p "$root"/{etc,tmp,root,home/node,usr/local/bin,usr/local/lib,etc/ssl/certs}
chmod 1777 "$root/tmp"
copy_with_libs /bin/sh /bin/mkdir /bin/chown /bin/rm /bin/ls /bin/cat /usr/bin/env
install -m 0755 node_modules/node/bin/node "$root/usr/local/bin/node"
ldd node_modules/node/bin/node | grep -o '/[^ ]*' | while read -r lib; do
  mkdir -p "$root$(dirname "$lib")"; [ -e "$root$lib" ] || cp -L "$lib" "$root$lib"
done
cp -a /usr/lib/node_modules/npm "$root/usr/local/lib/npm"
ln -s ../lib/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
cp -L /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
printf 'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000::/home/node:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\nnode:x:1000:\n' >"$root/etc/group"
chown 1000:1000 "$root/home/node"
tar -C "$root" -c . | podman import \
  --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["node"]' - "$name" >/dev/null
echo "$name"
