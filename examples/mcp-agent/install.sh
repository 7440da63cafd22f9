#!/usr/bin/env bash
# Installs the example MCP agent's one dependency, the official MCP
# TypeScript SDK, at the version package.json pins, into node_modules here.
set -euo pipefail
cd "$(dirname "$0")"
npm install --no-package-lock --no-audit --no-fund --loglevel=error
