#!/usr/bin/env bash
# Set everything up, then run the main job: `openrepro demo` on the embedded defaults.
# Extra arguments go to `openrepro demo` (e.g. --dir DIR, --quick, --serve, --format json).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh demo  # runtime dependencies and the embedded model only
exec .venv/bin/openrepro demo "$@"
