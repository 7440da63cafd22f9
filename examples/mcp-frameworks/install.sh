#!/usr/bin/env bash
# Installs the frameworks the example agents are written on, at the
# versions package.json pins, into node_modules here, with the Node they
# need (22 or later): the "node" package puts one at node_modules/.bin/node,
# whatever Node runs npm.
set -euo pipefail
cd "$(dirname "$0")"
npm install --no-package-lock --no-audit --no-fund --loglevel=error
node_modules/.bin/node --version
