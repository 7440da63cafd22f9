#!/usr/bin/env bash
# Installs the OpenTelemetry SDK the example agent is written with, at the
# versions package.json pins, into node_modules here, with the Node it
# needs (22.15 or later): the "node" package puts one at
# node_modules/.bin/node, whatever Node runs npm.
set -euo pipefail
cd "$(dirname "$0")"
npm install --no-package-lock --no-audit --no-fund --loglevel=error
node_modules/.bin/node --version
