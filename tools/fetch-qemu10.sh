#!/bin/bash
# Unpack QEMU 10 from Debian's bookworm-backports suite into build/qemu10,
# without installing anything system-wide.
#
#   tools/fetch-qemu10.sh            fetch, unpack and check it runs
#   tools/fetch-qemu10.sh --force    start again from an empty build/qemu10
#   tools/fetch-qemu10.sh --if-missing   nothing if build/qemu10 holds a QEMU 10
#                                    that runs (make check's dependency step)
#   tools/fetch-qemu10.sh --print-source   only show which apt source is reused
#
# Then: ./run-qemu.sh --qemu10 ..., and tests/qemu/runner.py runs its qemu10
# cases (skipped until this has run).
#
# How: a private apt configuration under build/qemu10/apt lists only the
# backports suite, on the same mirror that this machine's own Debian apt
# source uses (tools/apt-private.sh, shared with tools/fetch-linux.sh; no
# host name is written into the project). `apt-get download` fetches qemu-system-x86,
# qemu-system-common, qemu-system-data and seabios (QEMU 10's pc BIOS needs
# backports' SeaBIOS), plus any library whose installed version is older
# than QEMU 10 asks for, and `dpkg -x` unpacks each into build/qemu10.
# run-qemu.sh --qemu10 then runs build/qemu10/usr/bin/qemu-system-x86_64
# with -L for its firmware directories (usr/share/qemu, usr/share/seabios),
# QEMU_MODULE_DIR for its modules and LD_LIBRARY_PATH for any library that
# had to be unpacked too (none on a bookworm that has QEMU 7.2 installed).
#
# Root is not needed: the private apt state lives in the build tree, and
# signatures are still checked against the machine's Debian keyring.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/build/qemu10"
apt_dir="$dest/apt"
debs="$dest/debs"
prog=fetch-qemu10
# shellcheck source=tools/apt-private.sh
. "$root/tools/apt-private.sh"
# The backports of the running release (QEMU 10 is in bookworm-backports).
suite="${SUITE:-$apt_codename-backports}"
PACKAGES="qemu-system-x86 qemu-system-common qemu-system-data seabios"


case "${1:-}" in
--force) rm -rf "$dest" ;;
--if-missing)
	# version.txt is written last, once the unpacked QEMU has run.
	if [ -s "$dest/version.txt" ] && [ -x "$dest/usr/bin/qemu-system-x86_64" ]; then
		exit 0
	fi
	;;
--print-source | "") ;;
-h | --help)
	# The comment block at the top of this file.
	awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
	exit 0
	;;
*) die "unknown option '$1' (try --help)" ;;
esac

apt_private_tools
if [ "${1:-}" = --print-source ]; then
	src=$(apt_private_source)
	[ -n "$src" ] || die "no enabled apt source for Debian '$apt_codename' found in $apt_etc/sources.list{,.d}"
	echo "$src"
	exit 0
fi
mkdir -p "$debs"
apt_private_setup "$apt_dir" "$suite"

# Candidate version of package $1 in the backports suite, or empty.
bpo_version() {
	apt-cache "${apt_opts[@]}" show "$1/$suite" 2>/dev/null |
		awk '/^Version:/ { print $2; exit }'
}

# Downloads package $1 (from backports if it is there, else from the
# system's own sources) into $debs unless a .deb of it is there already.
fetch() {
	local pkg=$1 ver
	if compgen -G "$debs/${pkg}_*.deb" >/dev/null; then
		return 0
	fi
	ver=$(bpo_version "$pkg")
	if [ -n "$ver" ]; then
		(cd "$debs" && apt-get "${apt_opts[@]}" -q download "$pkg/$suite") >&2 ||
			die "apt-get download $pkg/$suite failed"
	else
		(cd "$debs" && apt-get -q download "$pkg") >&2 ||
			die "apt-get download $pkg failed (not in $suite either)"
	fi
}

# Prints the packages named in a .deb's Depends whose installed version
# (or the version already fetched into $debs) does not satisfy it. Only
# the first alternative of each "a | b" is considered; virtual packages
# (no version) are treated as satisfied when anything provides them.
unmet_depends() {
	local deb=$1 dep name op ver have
	dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/|.*//; s/^ *//; s/ *$//' |
		while IFS= read -r dep; do
			[ -n "$dep" ] || continue
			name=${dep%% *}
			name=${name%%:*}
			op="" ver=""
			if [[ $dep =~ \(([<>=]+)\ *([^\)]+)\) ]]; then
				op=${BASH_REMATCH[1]} ver=${BASH_REMATCH[2]}
			fi
			have=$(fetched_version "$name")
			[ -n "$have" ] || have=$(dpkg-query -W -f='${Version}' "$name" 2>/dev/null || true)
			if [ -z "$have" ]; then
				# Not installed under that name: maybe provided.
				if dpkg-query -W -f='${Provides}\n' 2>/dev/null | tr ',' '\n' |
					sed 's/ *(.*//; s/^ *//' | grep -qx "$name"; then
					continue
				fi
				echo "$name"
			elif [ -n "$op" ] && ! dpkg --compare-versions "$have" "$(dpkg_op "$op")" "$ver"; then
				echo "$name"
			fi
		done
}

# Version of package $1 already downloaded into $debs, or empty.
fetched_version() {
	local f
	for f in "$debs/$1"_*.deb; do
		[ -f "$f" ] && dpkg-deb -f "$f" Version && return 0
	done
	return 0
}

# Debian relation operators, spelled the way dpkg --compare-versions wants.
dpkg_op() {
	case "$1" in
	">=") echo ge ;; "<=") echo le ;; ">>") echo gt ;; "<<") echo lt ;;
	"=") echo eq ;; *) echo ge ;;
	esac
}

for p in $PACKAGES; do
	fetch "$p"
done

# Follow QEMU's dependencies (and theirs) to the libraries this machine has
# in too old a version or not at all. The data/firmware packages we do
# not use (ipxe-qemu: we boot without a NIC) are not needed.
skip_re='^(ipxe-qemu|qemu-system-common|qemu-system-data|seabios|libc6|dpkg|debconf|adduser|init-system-helpers)$'
queue=("$debs"/qemu-system-x86_*.deb)
seen=" "
while [ ${#queue[@]} -gt 0 ]; do
	deb=${queue[0]}
	queue=("${queue[@]:1}")
	while IFS= read -r need; do
		[[ $need =~ $skip_re ]] && continue
		case "$seen" in *" $need "*) continue ;; esac
		seen="$seen$need "
		say "also needed: $need (not installed, or installed version too old)"
		fetch "$need"
		queue+=("$debs/${need}"_*.deb)
	done < <(unmet_depends "$deb")
done

for deb in "$debs"/*.deb; do
	dpkg -x "$deb" "$dest"
done

# Check that it runs, with the libraries unpacked beside it.
bin="$dest/usr/bin/qemu-system-x86_64"
[ -x "$bin" ] || die "$bin missing after unpacking"
libpath="$dest/usr/lib/x86_64-linux-gnu:$dest/lib/x86_64-linux-gnu"
if ! LD_LIBRARY_PATH="$libpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$bin" --version >"$dest/version.txt" 2>&1; then
	cat "$dest/version.txt" >&2
	die "$bin does not run (see above)"
fi
# The pc BIOS is only in SeaBIOS's directory; QEMU's own directory has the
# option ROMs (multiboot_dma.bin, linuxboot_dma.bin, kvmvapic.bin).
for f in usr/share/seabios/bios-256k.bin usr/share/qemu/multiboot_dma.bin; do
	[ -e "$dest/$f" ] || die "$dest/$f missing after unpacking"
done
say "ok: $(head -n 1 "$dest/version.txt")"
say "run: ./run-qemu.sh --qemu10 ..."
