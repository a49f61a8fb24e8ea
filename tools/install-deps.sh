#!/bin/sh
# Bring a Debian 12 machine to the point where `make`, `make iso`,
# `./run-qemu.sh`, `make check` and tools/shootdown.py (plot: python3-matplotlib;
# the TAP test: perl's prove) work.
#
#   tools/install-deps.sh            install what is missing (as root): what
#                                    make check needs, and the optional
#                                    packages below
#   tools/install-deps.sh --run      only what ./run-qemu.sh needs to build
#                                    and boot the harness (run-qemu.sh asks
#                                    for this)
#   tools/install-deps.sh --check    only report; exit 1 if anything make check
#                                    needs is missing (not so clang, which
#                                    only make fuzz needs: check skips it)
#   tools/install-deps.sh --quiet    say nothing when everything is there
#   tools/install-deps.sh --qemu10   also unpack QEMU 10 from bookworm-backports
#                                    into build/qemu10 unless it is there (see
#                                    docs/qemu.md); exit 1 if it cannot be had
#   tools/install-deps.sh --qemu10-try  the same, but if it cannot be had, say
#                                    why and go on (make check: its QEMU 10
#                                    cases are then skipped with the reason)
#   tools/install-deps.sh --linux    also unpack the Linux side's kernel from
#                                    trixie-backports into build/linux unless
#                                    it is there (tools/fetch-linux.sh,
#                                    docs/linux.md); exit 1 if it cannot be had
#   tools/install-deps.sh --linux-try   the same, but if it cannot be had, say
#                                    why and go on (make check: its linux
#                                    cases are then skipped with the reason)
#
# Without root it prints the exact command to run instead.
set -eu

# What ./run-qemu.sh needs: build the kernel and the ISO, boot it under QEMU
# (SeaBIOS, OVMF, the NIC's iPXE), read the console.
RUN_PACKAGES="build-essential binutils make python3 qemu-system-x86 ovmf ipxe-qemu \
grub-pc-bin grub-efi-amd64-bin grub-common xorriso mtools"
PACKAGES="$RUN_PACKAGES git perl python3-matplotlib libcmocka-dev pkg-config clang-format"
# The fuzz targets (tests/fuzz/): clang and its libFuzzer/sanitizer
# runtimes; and Bochs 2.7 (./run-qemu.sh --emulator bochs, docs/bochs.md):
# the emulator, its BIOS, its terminal display and the VGA BIOS. Installed
# with the rest as root; a user without them is told what to install, and
# make check runs without them (SKIP lines naming the package). And
# lava-dispatcher (about 131 packages, 190 MB): the LAVA cases run lava-run
# for real (tests/lava/run.py, docs/lab.md). Its package enables the
# lava-worker service, which would poll for a LAVA server: right after
# installing it here, the service is disabled and stopped (lava-run needs
# no worker).
OPTIONAL="clang libclang-rt-14-dev bochs bochsbios bochs-term vgabios lava-dispatcher chromium"

check_only=0
run_only=0
want_qemu10=0
want_linux=0
quiet=0
for arg in "$@"; do
	case "$arg" in
	--check) check_only=1 ;;
	--quiet) quiet=1 ;;
	--run) run_only=1 ;;
	--qemu10) want_qemu10=1 ;;
	--qemu10-try) want_qemu10=try ;;
	--linux) want_linux=1 ;;
	--linux-try) want_linux=try ;;
	-h | --help)
		sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "install-deps: unknown option '$arg' (try --help)" >&2
		exit 2
		;;
	esac
done

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

if [ "$run_only" = 1 ]; then
	PACKAGES=$RUN_PACKAGES
	OPTIONAL=""
fi
missing=""
for p in $PACKAGES; do
	installed "$p" || missing="$missing $p"
done
optional=""
for p in $OPTIONAL; do
	installed "$p" || optional="$optional $p"
done

# A service a package we installed enabled: disabled and stopped again.
quiet_service() {
	unit=$1
	[ -e "/lib/systemd/system/$unit" ] || return 0
	command -v systemctl >/dev/null || return 0
	systemctl disable --now "$unit" >/dev/null 2>&1 || systemctl disable "$unit" >/dev/null 2>&1 || true
	echo "install-deps: $unit (enabled by its package) disabled and stopped: lava-run needs no worker" >&2
}

if [ -z "$missing$optional" ]; then
	[ "$quiet" = 1 ] || echo "install-deps: all packages present"
elif [ -z "$missing" ] && { [ "$check_only" = 1 ] || [ "$(id -u)" != 0 ]; }; then
	# Only the fuzzing packages: say so, and let make check go on.
	echo "install-deps: missing (for make fuzz, the Bochs and LAVA cases; make check" \
		"skips what needs them):$optional" >&2
	echo "install-deps: run: sudo apt-get install -y --no-install-recommends$optional" >&2
elif [ "$check_only" = 1 ]; then
	echo "install-deps: missing:$missing$optional" >&2
	echo "install-deps: run: sudo apt-get install -y$missing$optional" >&2
	exit 1
elif [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing:$missing$optional" >&2
	echo "install-deps: run as root, or: sudo apt-get update && sudo apt-get install -y --no-install-recommends$missing$optional" >&2
	exit 1
else
	export DEBIAN_FRONTEND=noninteractive
	# A third-party source that cannot be reached must not stop us: the
	# packages we need all come from Debian's own archive.
	apt-get update || echo "install-deps: apt-get update reported errors; trying the install anyway" >&2
	# shellcheck disable=SC2086
	apt-get install -y --no-install-recommends $missing $optional
	case " $optional " in
	*" lava-dispatcher "*) quiet_service lava-worker.service ;;
	esac
fi

fetch_qemu10="$(dirname "$0")/fetch-qemu10.sh"
if [ "$want_qemu10" = 1 ]; then
	"$fetch_qemu10" --if-missing || exit 1
elif [ "$want_qemu10" = try ] && ! "$fetch_qemu10" --if-missing; then
	echo "install-deps: QEMU 10 could not be had (above): the cases that" \
		"need it are skipped, naming tools/fetch-qemu10.sh" >&2
fi
fetch_linux="$(dirname "$0")/fetch-linux.sh"
if [ "$want_linux" = 1 ]; then
	"$fetch_linux" --if-missing || exit 1
elif [ "$want_linux" = try ] && ! "$fetch_linux" --if-missing; then
	echo "install-deps: the Linux side's kernel could not be had (above):" \
		"the linux cases are skipped, naming tools/fetch-linux.sh" >&2
fi
