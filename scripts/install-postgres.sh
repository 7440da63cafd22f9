#!/usr/bin/env bash
# Installs PostgreSQL's server programs (initdb, postgres, pg_ctl) from Debian's packages for
# the tests of the history store's postgres: kind (internal/pgtest). The tests start the server
# themselves: initdb in a temporary folder, postgres on a 127.0.0.1 port, as the user nobody when
# they run as root. Prints the folder of the programs; exits 1 when they are not there and cannot
# be installed (apt-get needs root).
set -euo pipefail

find_bin() {
  local d
  if command -v initdb >/dev/null 2>&1; then
    dirname "$(readlink -f "$(command -v initdb)")"
    return 0
  fi
  # Debian's /usr/lib/postgresql/<major>/bin, the newest major first.
  for d in $(printf '%s\n' /usr/lib/postgresql/*/bin | sort -t/ -k5 -rn); do
    if [[ -x $d/initdb && -x $d/postgres ]]; then
      echo "$d"
      return 0
    fi
  done
  return 1
}

if find_bin; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1 || [[ $(id -u) != 0 ]]; then
  echo "install-postgres: PostgreSQL is not installed, and apt-get as root is not available to install it (apt-get install postgresql)" >&2
  exit 1
fi
# postgresql-common would create and start a cluster as a service: the tests need neither.
mkdir -p /etc/postgresql-common
if [[ ! -f /etc/postgresql-common/createcluster.conf ]]; then
  echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.conf
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
find_bin
