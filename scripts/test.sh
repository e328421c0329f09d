#!/usr/bin/env bash
# Set up and run the whole test suite: lint (ruff), types (mypy --strict on src/), and pytest
# against SQLite and a throwaway PostgreSQL server. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test  # adds the dev and ray extras
source scripts/postgres.sh
source scripts/chromium.sh
source scripts/bubblewrap.sh  # the replay sandbox
export OPENREPRO_TEST_REQUIRE_POSTGRES=1
echo "== ruff" >&2
.venv/bin/ruff check src tests bench scripts
.venv/bin/ruff format --check src tests bench scripts
echo "== mypy" >&2
.venv/bin/mypy
echo "== pytest" >&2
.venv/bin/pytest "$@"
