#!/usr/bin/env bash
# Builds pgvector for the machine's PostgreSQL from Debian's source package (no other download
# source is reachable here) and restarts the cluster so the new server files are picked up.
set -euo pipefail
pg_major=$(ls /etc/postgresql | sort -n | tail -1)
if [ -f "/usr/share/postgresql/$pg_major/extension/vector.control" ]; then
  echo "pgvector already installed for PostgreSQL $pg_major"; exit 0
fi
if ! grep -rqs 'trixie' /etc/apt/sources.list.d/xclaw-src.sources; then
  cat > /etc/apt/sources.list.d/xclaw-src.sources <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-server-dev-$pg_major" dpkg-dev make gcc >/dev/null
work=$(mktemp -d)
( cd "$work" && apt-get source -qq pgvector >/dev/null 2>&1 )
src=$(find "$work" -maxdepth 1 -type d -name 'pgvector-*' | head -1)
make -C "$src" PG_CONFIG="/usr/lib/postgresql/$pg_major/bin/pg_config" OPTFLAGS="" >/dev/null
make -C "$src" PG_CONFIG="/usr/lib/postgresql/$pg_major/bin/pg_config" install >/dev/null
rm -rf "$work"
# The dev package upgrades server files under the running process; plpgsql breaks until a restart.
pg_ctlcluster --skip-systemctl-redirect "$pg_major" main restart
echo "pgvector installed for PostgreSQL $pg_major"
