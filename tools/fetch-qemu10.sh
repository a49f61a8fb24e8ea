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
# source uses (read from /etc/apt/sources.list{,.d}; no host name is written
# into the project). `apt-get download` fetches qemu-system-x86,
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
# The backports of the running release (QEMU 10 is in bookworm-backports).
# shellcheck disable=SC1091 # a system file, read at run time
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
suite="${SUITE:-$codename-backports}"
PACKAGES="qemu-system-x86 qemu-system-common qemu-system-data seabios"
# Where the machine's apt sources are (a variable only for testing the parser).
apt_etc="${APT_ETC:-/etc/apt}"

die() {
	echo "fetch-qemu10: $*" >&2
	exit 1
}
say() { echo "fetch-qemu10: $*" >&2; }

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

for tool in apt-get apt-cache dpkg dpkg-deb; do
	command -v "$tool" >/dev/null || die "'$tool' not found: this needs a Debian system (package: apt, dpkg)"
done

# Prints "URI SIGNED_BY" for the first enabled Debian source of $codename.
# One-line (.list) and deb822 (.sources) formats are both read; SIGNED_BY is
# "-" when the entry names no keyring file (apt then uses trusted.gpg.d).
find_debian_source() {
	local f files=()
	[ -f "$apt_etc/sources.list" ] && files+=("$apt_etc/sources.list")
	for f in "$apt_etc"/sources.list.d/*.list "$apt_etc"/sources.list.d/*.sources; do
		[ -f "$f" ] && files+=("$f")
	done
	for f in "${files[@]}"; do
		case "$f" in
		*.sources)
			# deb822: stanzas separated by blank lines; a stanza is
			# ours when it is enabled, of type deb, lists the
			# release's own suite and its URI serves it.
			awk -v want="$codename" '
				function flush() {
					if (types ~ /(^| )deb( |$)/ && enabled != "no" &&
					    (" " suites " ") ~ (" " want " ") && uri != "")
						{ print uri, (kr == "" ? "-" : kr); found = 1; exit }
					types = suites = uri = kr = enabled = ""
				}
				/^[ \t]*#/ { next }
				/^[ \t]*$/ { flush(); next }
				{
					key = tolower($1); sub(/:$/, "", key)
					val = $0; sub(/^[^:]*:[ \t]*/, "", val)
					if (key == "types") types = val
					else if (key == "suites") suites = val
					else if (key == "uris") { split(val, u, " "); uri = u[1] }
					else if (key == "enabled") enabled = tolower(val)
					else if (key == "signed-by" && val ~ /^\//) kr = val
				}
				END { if (!found) flush() }' "$f"
			;;
		*)
			# deb [opt=val ...] URI SUITE COMPONENT...
			awk -v want="$codename" '
				$1 != "deb" { next }
				{
					kr = "-"; i = 2
					if ($2 ~ /^\[/) {
						while (i <= NF) {
							o = $i; gsub(/[\[\]]/, "", o)
							if (o ~ /^signed-by=\//) { kr = o; sub(/^signed-by=/, "", kr) }
							if ($i ~ /\]$/) { i++; break }
							i++
						}
					}
					if ($(i + 1) == want) { print $i, kr; exit }
				}' "$f"
			;;
		esac
	done | head -n 1
}

src=$(find_debian_source)
[ -n "$src" ] || die "no enabled apt source for Debian '$codename' found in $apt_etc/sources.list{,.d}: add one (the backports suite is looked up on the same mirror)"
if [ "${1:-}" = --print-source ]; then
	echo "$src"
	exit 0
fi
uri=${src%% *}
keyring=${src#* }
say "using this machine's Debian mirror for $suite"

# A private apt configuration: only the backports suite, its own lists and
# cache, and an empty parts directory so that no system source leaks in.
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" \
	"$apt_dir/parts.d" "$debs"
if [ "$keyring" = "-" ]; then
	echo "deb $uri $suite main" >"$apt_dir/sources.list"
else
	echo "deb [signed-by=$keyring] $uri $suite main" >"$apt_dir/sources.list"
fi
apt_opts=(
	-o "Dir::Etc::SourceList=$apt_dir/sources.list"
	-o "Dir::Etc::SourceParts=$apt_dir/parts.d"
	-o "Dir::State::Lists=$apt_dir/lists"
	-o "Dir::Cache=$apt_dir/cache"
	-o "APT::Get::List-Cleanup=false"
)
if [ "$(id -u)" = 0 ]; then
	# apt drops to the _apt user for downloads; that user may not be able
	# to write into a build tree in someone's home, so keep root here (the
	# files are still verified against the keyring).
	apt_opts+=(-o "APT::Sandbox::User=root")
fi

say "apt-get update ($suite only, private lists in build/qemu10/apt)"
apt-get "${apt_opts[@]}" -q update >"$apt_dir/update.log" 2>&1 ||
	{ cat "$apt_dir/update.log" >&2; die "apt-get update failed (see above)"; }

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
