#!/usr/bin/env bash
# Installs everything kgspec needs on a fresh Debian machine: Java (for Spark), Graphviz
# (to render diagrams), Chromium (headless, to test the `kgspec check --html` page), a Python
# 3.11 virtual environment in .venv with the pinned dependencies (constraints.txt) and kgspec
# itself in editable mode with every extra.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v java >/dev/null 2>&1 || need_apt+=(openjdk-17-jre-headless)
command -v dot >/dev/null 2>&1 || need_apt+=(graphviz)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)  # renders `kgspec check --html` pages in the tests
if [ ${#need_apt[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}"
fi

PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null 2>&1 || PY=python3
"$PY" - <<'PYCHECK'
import sys
if sys.version_info[:2] < (3, 11):
    raise SystemExit(f"kgspec needs Python 3.11+, found {sys.version.split()[0]}")
PYCHECK

[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade "pip>=24" 
.venv/bin/python -m pip install -q -c constraints.txt -e ".[all]"
echo "kgspec installed: $(.venv/bin/kgspec --version)"
