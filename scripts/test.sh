#!/usr/bin/env bash
# Install everything Pith's tests need on a fresh Debian machine with Python 3.11 (apt packages included),
# then run the whole test suite. CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
if ! [ -x /usr/lib/chromium/chromium ]; then
  echo "== apt: chromium (browser tests use Debian's build; nothing is downloaded at run time)"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

echo "== pip: pith with the training and test extras (torch pinned to the CPU build)"
python3 -m pip install -q --upgrade pip
python3 -m pip install -q -e '.[train,test]'

echo "== tests"
python3 -m pytest -q "$@"
