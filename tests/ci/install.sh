#!/bin/sh
# The validators make ci-lint runs on ci/*.yml (tests/ci/test_ci_lint.py),
# exactly as package-lock.json pins them, into tests/ci/node_modules:
# @action-validator/cli (GitHub's workflow schema) and gitlab-ci-local
# (GitLab's CI schema, bundled). npm from the distribution where it is
# missing (as root). tools/install-deps.sh --ci runs this; --dry-run: say
# what would be run. Exit 1, saying why, where they cannot be had.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dry_run=0
[ "${1:-}" = --dry-run ] && dry_run=1

if ! command -v npm >/dev/null; then
	if [ $dry_run = 1 ]; then
		echo "apt-get install -y --no-install-recommends npm"
	elif [ "$(id -u)" = 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends npm ||
			{ echo "tests/ci: npm could not be installed (above)" >&2; exit 1; }
	else
		echo "tests/ci: npm not found: as root, apt-get install npm" >&2
		exit 1
	fi
fi
if [ $dry_run = 1 ]; then
	echo "npm ci --prefix $here --no-audit --no-fund"
	exit 0
fi
# Already there at the versions package.json pins: nothing to fetch.
if [ -d "$here/node_modules" ] && npm ls --prefix "$here" --all >/dev/null 2>&1; then
	exit 0
fi
npm ci --prefix "$here" --no-audit --no-fund --loglevel=error ||
	{ echo "tests/ci: npm ci failed (above): no registry, or no network?" >&2; exit 1; }
