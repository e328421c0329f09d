#!/usr/bin/env bash
# Make Debian's bubblewrap (`bwrap`) available: `openrepro replay` runs participant code in its
# sandbox and runs nothing without it (docs/provenance.md).
#   source scripts/bubblewrap.sh   -> installs it when missing (as root, with apt-get)
set -euo pipefail

if ! command -v bwrap >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "bubblewrap is missing; install Debian's 'bubblewrap' package" >&2
    return 1 2>/dev/null || exit 1
  fi
  echo "installing bubblewrap from Debian packages" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
fi
echo "bubblewrap: $(command -v bwrap)" >&2
