#!/usr/bin/env bash
# Installs what is missing, builds skiff in release mode and runs skiff-target.
# Without arguments the target serves its built-in default configuration; any arguments are
# passed to skiff-target (see `build/bin/skiff-target --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh release >/dev/null
exec build/bin/skiff-target "$@"
