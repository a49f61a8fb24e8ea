#!/bin/sh
# Bring a Debian 12 (or Ubuntu 22.04, 24.04) machine to the point where
# `make`, `make iso`, `./run-qemu.sh`, `make check` and tools/shootdown.py
# (plot: python3-matplotlib; the TAP test: perl's prove) work.
#
#   tools/install-deps.sh            install what is missing (as root): what
#                                    make check needs, then, in a step of
#                                    their own that cannot fail, the
#                                    optional packages below
#   tools/install-deps.sh --run      only what ./run-qemu.sh needs to build
#                                    and boot the harness (run-qemu.sh asks
#                                    for this)
#   tools/install-deps.sh --job      what tools/ci-run.sh needs (--run's and
#                                    matplotlib for its plots), nothing else:
#                                    a CI job's (ci-run.sh --install-deps)
#   tools/install-deps.sh --optional only the optional packages, each one the
#                                    archive has; one that cannot be had is
#                                    named, and the exit status is still 0
#   tools/install-deps.sh --ci       also the npm validators of the CI
#                                    templates (tests/ci, make ci-lint); if
#                                    they cannot be had, say why and go on
#   tools/install-deps.sh --check    only report; exit 1 if anything make check
#                                    needs is missing (not so the optional
#                                    packages: check skips what needs them)
#   tools/install-deps.sh --dry-run  print the apt-get commands a run as root
#                                    would make, install nothing
#   tools/install-deps.sh --list     print every package name this script
#                                    may ask for, one a line ("a|b": either)
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
# (SeaBIOS, OVMF, the NIC's iPXE), read the console. The same names on
# Debian 12 and Ubuntu 22.04 and 24.04.
RUN_PACKAGES="build-essential binutils make python3 qemu-system-x86 ovmf ipxe-qemu \
grub-pc-bin grub-efi-amd64-bin grub-common xorriso mtools"
JOB_PACKAGES="$RUN_PACKAGES python3-matplotlib"
PACKAGES="$JOB_PACKAGES git perl python3-yaml libcmocka-dev pkg-config clang-format"
# The fuzz targets (tests/fuzz/): clang and its libFuzzer/sanitizer
# runtimes (Debian 12 and Ubuntu 24.04: libclang-rt-dev, the default
# clang's; Ubuntu 22.04 has no such package and its clang-14 carries them
# in libclang-common-14-dev); Bochs 2.7 (./run-qemu.sh --emulator bochs,
# docs/bochs.md): the emulator, its BIOS, its terminal display and the VGA
# BIOS; chromium (the page test; Ubuntu has no chromium package, only a
# snap); and lava-dispatcher (about 131 packages, 190 MB): the LAVA cases
# run lava-run for real (tests/lava/run.py, docs/lab.md). Its package
# enables the lava-worker service, which would poll for a LAVA server:
# right after installing it here, the service is disabled and stopped
# (lava-run needs no worker). "a|b": the first of them the archive has.
OPTIONAL="clang libclang-rt-dev|libclang-common-14-dev bochs bochsbios bochs-term vgabios \
lava-dispatcher chromium"

mode=all
want_qemu10=0
want_ci=0
want_linux=0
quiet=0
dry_run=0
for arg in "$@"; do
	case "$arg" in
	--check) mode=check ;;
	--quiet) quiet=1 ;;
	--run) mode=run ;;
	--job) mode=job ;;
	--optional) mode=optional ;;
	--ci) want_ci=1 ;;
	--dry-run) dry_run=1 ;;
	--list) mode=list ;;
	--qemu10) want_qemu10=1 ;;
	--qemu10-try) want_qemu10=try ;;
	--linux) want_linux=1 ;;
	--linux-try) want_linux=try ;;
	-h | --help)
		sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
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

# Whether the archive (as apt last read it) has a package of that name.
known() {
	apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [^(]'
}

case $mode in
list)
	for p in $PACKAGES $OPTIONAL npm; do echo "$p"; done
	exit 0
	;;
run) PACKAGES=$RUN_PACKAGES OPTIONAL="" ;;
job) PACKAGES=$JOB_PACKAGES OPTIONAL="" ;;
optional) PACKAGES="" ;;
esac
missing=""
for p in $PACKAGES; do
	installed "$p" || missing="$missing $p"
done
# An optional entry is there when any of its names is installed.
optional=""
for entry in $OPTIONAL; do
	have=0
	for p in $(echo "$entry" | tr '|' ' '); do
		installed "$p" && have=1
	done
	[ $have = 1 ] || optional="$optional $entry"
done

# A service a package we installed enabled: disabled and stopped again.
quiet_service() {
	unit=$1
	[ -e "/lib/systemd/system/$unit" ] || return 0
	command -v systemctl >/dev/null || return 0
	systemctl disable --now "$unit" >/dev/null 2>&1 || systemctl disable "$unit" >/dev/null 2>&1 || true
	echo "install-deps: $unit (enabled by its package) disabled and stopped: lava-run needs no worker" >&2
}

# The optional packages: each entry's first name the archive has; the
# batch, and if it fails, one at a time; what could not be had is named.
# Never fails: make check and a CI job run without them.
install_optional() {
	names="" lacking=""
	for entry in $optional; do
		pick=""
		for p in $(echo "$entry" | tr '|' ' '); do
			if [ -z "$pick" ] && known "$p"; then
				pick=$p
			fi
		done
		if [ -n "$pick" ]; then
			names="$names $pick"
		else
			lacking="$lacking $entry"
		fi
	done
	[ -z "$lacking" ] || echo "install-deps: not in this machine's archive (make check skips what needs them):$lacking" >&2
	[ -n "$names" ] || return 0
	# shellcheck disable=SC2086
	if [ $dry_run = 1 ]; then
		echo "apt-get install -y --no-install-recommends$names"
	elif ! apt-get install -y --no-install-recommends $names; then
		failed=""
		for p in $names; do
			apt-get install -y --no-install-recommends "$p" || failed="$failed $p"
		done
		[ -z "$failed" ] || echo "install-deps: optional packages that could not be installed (make check skips what needs them):$failed" >&2
	fi
	case " $names " in
	*" lava-dispatcher "*) [ $dry_run = 1 ] || quiet_service lava-worker.service ;;
	esac
	return 0
}

if [ $dry_run = 1 ]; then
	echo "apt-get update"
	[ -z "$missing" ] || echo "apt-get install -y --no-install-recommends$missing"
	install_optional
elif [ -z "$missing$optional" ]; then
	[ "$quiet" = 1 ] || echo "install-deps: all packages present"
elif [ -z "$missing" ] && { [ "$mode" = check ] || [ "$(id -u)" != 0 ]; }; then
	# Only the optional packages: say so, and let make check go on.
	echo "install-deps: missing (for make fuzz, the Bochs, page and LAVA cases; make check" \
		"skips what needs them):$optional" >&2
	echo "install-deps: run as root: tools/install-deps.sh --optional" >&2
elif [ "$mode" = check ]; then
	echo "install-deps: missing:$missing$optional" >&2
	echo "install-deps: run: sudo apt-get install -y$missing (and tools/install-deps.sh --optional)" >&2
	exit 1
elif [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing:$missing$optional" >&2
	echo "install-deps: run as root, or: sudo apt-get update && sudo apt-get install -y --no-install-recommends$missing" >&2
	exit 1
else
	export DEBIAN_FRONTEND=noninteractive
	# A third-party source that cannot be reached must not stop us: the
	# packages we need all come from the distribution's own archive.
	apt-get update || echo "install-deps: apt-get update reported errors; trying the install anyway" >&2
	# What is needed first, on its own: an optional package the archive
	# lacks or cannot install must not stop it.
	if [ -n "$missing" ]; then
		# shellcheck disable=SC2086
		apt-get install -y --no-install-recommends $missing
	fi
	install_optional
fi

if [ $want_ci = 1 ]; then
	ci_opt=""
	[ $dry_run = 0 ] || ci_opt=--dry-run
	# shellcheck disable=SC2086
	"$(dirname "$0")/../tests/ci/install.sh" $ci_opt ||
		echo "install-deps: the CI templates' validators could not be had (above): make ci-lint skips, saying why" >&2
fi

# fetch WANT SCRIPT WHAT: runs tools/SCRIPT where WANT is 1 (its failure
# is ours) or try (its failure skips the cases that need WHAT, said here).
fetch() {
	[ "$1" = 1 ] || [ "$1" = try ] || return 0
	"$(dirname "$0")/$2" --if-missing && return 0
	[ "$1" = 1 ] && exit 1
	echo "install-deps: $3 could not be had (above): the cases that" \
		"need it are skipped, naming tools/$2" >&2
}
fetch "$want_qemu10" fetch-qemu10.sh "QEMU 10"
fetch "$want_linux" fetch-linux.sh "the Linux side's kernel"
