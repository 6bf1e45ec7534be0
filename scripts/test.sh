#!/usr/bin/env bash
# Install everything Pith's tests need on a fresh Debian machine with Python 3.11 (apt and npm packages
# included), then run the whole test suite. CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
missing=()
[ -x /usr/lib/chromium/chromium ] || missing+=(chromium)    # browser tests (marker: browser)
[ -x /usr/bin/firefox-esr ] || missing+=(firefox-esr)       # the same tests in Firefox (marker: firefox)
command -v npm >/dev/null || missing+=(nodejs npm)          # web-ext lint for the Firefox package, ESLint
if [ ${#missing[@]} -gt 0 ]; then
  echo "== apt: ${missing[*]} (Debian's builds; nothing is downloaded at run time)"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

echo "== npm: web-ext and ESLint (package.json; into node_modules/, which git ignores)"
npm install --no-audit --no-fund --loglevel=error

echo "== pip: pith with the training, test and corpus extras (torch at the version pyproject.toml pins)"
python3 -m pip install -q --upgrade pip
python3 -m pip install -q -e '.[train,test,corpus]'

echo "== tests, all of them: slow, Chromium and Firefox included"
python3 -m pytest -q "$@"
