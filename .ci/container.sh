#!/usr/bin/env bash
# CI's container step where no container can run (crun refuses cgroups here) and no registry but npm's and Debian's
# answers: builds the Dockerfile with `podman build --isolation chroot` on a base image made by .ci/base-image.sh,
# then starts the image's filesystem with chroot as the image's `node` user against PostgreSQL ($DATABASE_URL's
# server, a database of its own), and checks /readyz, one API call, and that the process is not root and cannot
# write the code. Usage: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .ci/container.sh
set -euo pipefail
cd "$(dirname "$0")/.."
admin="${DATABASE_URL:?DATABASE_URL names the PostgreSQL server to run against}"
db="cobro_image_ci_$$"
port="${CONTAINER_PORT:-18790}"
base="$(.ci/base-image.sh 2>/dev/null)"
podman build --quiet --isolation chroot --format docker --build-arg NODE_IMAGE="$base" -t localhost/cobro:ci . >/dev/null
ctr="$(podman create localhost/cobro:ci)"
root="$(podman mount "$ctr")"
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && sleep 1
  umount "$root/proc" "$root/dev" 2>/dev/null || true
  podman umount "$ctr" >/dev/null || true
  podman rm "$ctr" >/dev/null 2>&1 || true
  psql "$admin" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
}
trap cleanup EXIT
mount --bind /dev "$root/dev"
mount -t proc proc "$root/proc"
psql "$admin" -qc "CREATE DATABASE $db"
url="$(echo "$admin" | sed "s#/[^/?]*\(?.*\)\?\$#/$db#")"
uid="$(awk -F: '$1 == "node" { print $3 }' "$root/etc/passwd")"
gid="$(awk -F: '$1 == "node" { print $4 }' "$root/etc/passwd")"
log="$(mktemp)"
# The image's environment (NODE_ENV, DATA_DIR) and WORKDIR, as the container would have them; PORT on localhost.
env -i PATH=/usr/local/bin:/usr/bin:/bin NODE_ENV=production DATA_DIR=/data HOST=127.0.0.1 PORT="$port" \
  COBRO_MODE=sandbox DATABASE_URL="$url" \
  /usr/sbin/chroot --userspec="$uid:$gid" "$root" /bin/sh -c 'cd /app && exec node bin/cobro.js serve' >"$log" 2>&1 &
pid=$!
for _ in $(seq 1 90); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 1; done
curl -sf "http://127.0.0.1:$port/readyz" | grep -q '"ready":true' || { cat "$log"; echo "container: /readyz never answered"; exit 1; }
token="$(grep -o 'public token: *[0-9a-f]*' "$log" | awk '{ print $3 }')"
answer="$(curl -s -X POST "http://127.0.0.1:$port/api/transaction" -H "authorization: Bearer $token" \
  -H 'content-type: application/json' -H 'idempotency-key: ci-image-1' \
  -d '{"email":"payer@example.com","order":"ci-image-1","subject":"Image check","amount":1990}')"
echo "$answer" | grep -q '"status":"pending"' || { echo "container: the API call failed: $answer"; exit 1; }
running_uid="$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")"
[ "$running_uid" = "$uid" ] && [ "$running_uid" != 0 ] || { echo "container: runs as uid $running_uid"; exit 1; }
if /usr/sbin/chroot --userspec="$uid:$gid" "$root" /bin/sh -c 'echo x > /app/written' 2>/dev/null; then
  echo "container: the node user can write the code in /app"; exit 1
fi
echo "container: built, /readyz ready on PostgreSQL, POST /api/transaction answered pending, runs as node (uid $uid), /app read-only to it"
