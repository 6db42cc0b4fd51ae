#!/bin/sh
# Debian packages the test suite needs beyond PyPI: Chromium for the browser tests (driven by
# Playwright, so `playwright install` is never needed) and Node.js 20+ with npm for the TypeScript
# client. Installs only what is missing, with apt-get, as root or through sudo.
set -eu

missing=""
[ -x /usr/bin/chromium ] || missing="$missing chromium"
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -z "$missing" ]; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1; then
    as_root="sudo"
else
    echo "tests/install-system-deps.sh: missing$missing; install them as root: apt-get install$missing" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "tests/install-system-deps.sh: missing$missing and no apt-get here; install them with your system's packages" >&2
    exit 1
fi
echo "tests/install-system-deps.sh: installing$missing with apt-get" >&2
$as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086 # one word per package
$as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
