#!/usr/bin/env bash
# Set everything up, then run the main job: `openrepro demo` on the embedded defaults.
# Extra arguments go to `openrepro demo` (e.g. --dir DIR, --quick, --serve, --format json).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh demo  # runtime dependencies, the embedded model and Playwright
# Debian's Chromium for the demo's human review step (installed when missing and allowed; the
# demo says so and skips that one step when it cannot be had)
source scripts/chromium.sh || echo "no Chromium: the demo's human review step will be skipped" >&2
exec .venv/bin/openrepro demo "$@"
