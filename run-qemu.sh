#!/bin/sh
# Boot the harness under QEMU and stream its console: ./run-qemu.sh --help.
# The launcher itself is tools/run_qemu.py; this is the command users type.
# On a fresh machine it first installs what a run needs and is missing (as
# root: tools/install-deps.sh --run, QEMU, its firmware, GRUB, xorriso and a
# compiler, nothing else), or names it (as another user); with --linux, it
# unpacks the Linux side's kernel too (tools/fetch-linux.sh); --dry-run and
# --help install and build nothing.
root=$(cd "$(dirname "$0")" && pwd)
deps=1
linux=
for arg in "$@"; do
	case "$arg" in
	--) break ;;
	--dry-run | -h | --help) deps=0 ;;
	--linux) linux=--linux ;; # and Debian's kernel (docs/linux.md)
	esac
done
if [ "$deps" = 1 ]; then
	"$root/tools/install-deps.sh" --quiet --run $linux >&2 || {
		echo "run-qemu: missing dependencies: see above (tools/install-deps.sh)" >&2
		exit 2
	}
fi
exec python3 "$root/tools/run_qemu.py" "$@"
