#!/usr/bin/env bash
# Make Debian's Chromium available to the browser tests (Playwright drives it through
# executable_path; Playwright's own browser download is not used).
#   source scripts/chromium.sh   -> exports OPENREPRO_TEST_CHROMIUM
set -euo pipefail

_chromium() { command -v chromium 2>/dev/null || command -v chromium-browser 2>/dev/null || true; }

if [ -z "$(_chromium)" ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "Chromium is missing; install Debian's 'chromium' package" >&2
    return 1 2>/dev/null || exit 1
  fi
  echo "installing Chromium from Debian packages" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
export OPENREPRO_TEST_CHROMIUM="$(_chromium)"
echo "Chromium: $OPENREPRO_TEST_CHROMIUM" >&2
