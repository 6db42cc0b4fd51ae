#!/bin/sh
# Debian packages the test suite needs beyond PyPI: Chromium for the browser tests (driven by
# Playwright, so `playwright install` is never needed) and Node.js 20+ with npm for the TypeScript
# client. Installs only what is missing, with apt-get, as root or through sudo; then checks that
# the node on PATH is 20 or newer, which apt-get cannot promise (Debian 12 and Ubuntu 24.04 ship 18).
set -eu

NODE_MAJOR_NEEDED=20

# Says, in one line, what to do when the node on PATH is older than the TypeScript client needs
# (its package.json: "engines": {"node": ">=20"}); silent when it is new enough or absent.
check_node_version() {
    command -v node >/dev/null 2>&1 || return 0
    found=$(node --version 2>/dev/null || true)
    major=${found#v}
    major=${major%%.*}
    case "$major" in
        '' | *[!0-9]*) major=0 ;;
    esac
    if [ "$major" -ge "$NODE_MAJOR_NEEDED" ]; then
        return 0
    fi
    echo "tests/install-system-deps.sh: node ${found:-of unknown version} at $(command -v node) is older than Node.js $NODE_MAJOR_NEEDED, which the TypeScript client needs (Debian 12's apt has 18): install Node.js $NODE_MAJOR_NEEDED or newer with npm (nodejs.org, NodeSource's apt repository, or nvm), put it first on PATH, and run this again" >&2
    return 1
}

missing=""
[ -x /usr/bin/chromium ] || missing="$missing chromium"
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -z "$missing" ]; then
    check_node_version
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
# What apt-get installed may be too old (Debian 12's nodejs is 18), or an old node was there already.
check_node_version
