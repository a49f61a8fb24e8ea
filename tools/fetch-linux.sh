#!/bin/bash
# Unpack the newest Linux of Debian's trixie-backports suite (7.3 or later:
# CONFIG_BROADCAST_TLB_FLUSH, INVLPGB since 6.15) into build/linux, for the
# Linux side (docs/linux.md), without installing anything system-wide.
#
#   tools/fetch-linux.sh              fetch and unpack the kernel and modules
#   tools/fetch-linux.sh --force      start again from an empty build/linux
#   tools/fetch-linux.sh --if-missing nothing if build/linux holds a kernel
#                                     (make check's dependency step)
#
# Then: make linux (the initramfs), ./run-qemu.sh --linux.
#
# How: a private apt configuration under build/linux/apt lists only that
# suite, on this machine's own Debian mirror (tools/apt-private.sh, shared
# with tools/fetch-qemu10.sh). The flavour's meta package
# (linux-image-cloud-amd64) names the newest versioned image; of it,
# `apt-get download` fetches linux-binary-VERSION (the kernel, 14 MB),
# linux-modules-VERSION (23 MB) and linux-base-VERSION (its config, 1 MB),
# `dpkg -x` unpacks them under
# build/linux/root, and the modules zram needs (zram and what modinfo says
# it depends on, compressed as they come: the kernel decompresses them,
# CONFIG_MODULE_DECOMPRESS) are copied to build/linux/modules with the
# order to load them in. No version is pinned: the suite's newest is taken.
#
# Variables: LINUX_SUITE (default trixie-backports), LINUX_FLAVOUR (default
# cloud-amd64; amd64 is the generic one, with every driver).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/build/linux"
apt_dir="$dest/apt"
debs="$dest/debs"
suite="${LINUX_SUITE:-trixie-backports}"
flavour="${LINUX_FLAVOUR:-cloud-amd64}"
# What zram swap needs; their dependencies are found with modinfo.
MODULES="zram"

prog=fetch-linux
# shellcheck source=tools/apt-private.sh
. "$root/tools/apt-private.sh"

case "${1:-}" in
--force) rm -rf "$dest" ;;
--if-missing)
	# release.txt is written last, once everything is in place.
	if [ -s "$dest/release.txt" ] && [ -s "$dest/vmlinuz" ] && [ -s "$dest/modules/order" ]; then
		exit 0
	fi
	;;
"") ;;
-h | --help)
	awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
	exit 0
	;;
*) die "unknown option '$1' (try --help)" ;;
esac

apt_private_tools
command -v modinfo >/dev/null || [ -x /sbin/modinfo ] ||
	die "'modinfo' not found (package: kmod)"
modinfo=$(command -v modinfo || echo /sbin/modinfo)
mkdir -p "$debs"
apt_private_setup "$apt_dir" "$suite"

# The meta package depends on linux-image-RELEASE (= VERSION). awk reads
# to the end: an early exit would end apt-cache by SIGPIPE, and pipefail
# the script, without a word.
meta="linux-image-$flavour"
image=$(apt-cache "${apt_opts[@]}" depends "$meta/$suite" 2>/dev/null |
	awk -v f="$flavour" '/Depends: linux-image-/ && $2 ~ ("-" f "$") && !n++ { print $2 }')
[ -n "$image" ] || die "$suite has no $meta naming a kernel image (is the suite right? LINUX_SUITE=...)"
release=${image#linux-image-}
say "newest in $suite: $release"

for pkg in "linux-binary-$release" "linux-modules-$release" "linux-base-$release"; do
	if ! compgen -G "$debs/${pkg}_*.deb" >/dev/null; then
		(cd "$debs" && apt-get "${apt_opts[@]}" -q download "$pkg/$suite") >&2 ||
			die "apt-get download $pkg/$suite failed"
	fi
done
rm -rf "$dest/root" "$dest/modules"
for deb in "$debs"/linux-*-"$release"_*.deb; do
	dpkg -x "$deb" "$dest/root"
done
mods="$dest/root/usr/lib/modules/$release"
[ -s "$mods/vmlinuz" ] || die "no vmlinuz in linux-binary-$release (its layout changed?)"
cp "$mods/vmlinuz" "$dest/vmlinuz"
[ -f "$mods/config" ] && cp "$mods/config" "$dest/config"

# Each module's file by its name (modinfo's names use _ where files may use -).
declare -A file_of
while IFS= read -r f; do
	name=$(basename "$f")
	name=${name%%.ko*}
	file_of[${name//-/_}]=$f
done < <(find "$mods/kernel" -name '*.ko*')

# Depth first: a module's dependencies before it, each once.
mkdir -p "$dest/modules"
: >"$dest/modules/order"
declare -A done_mod
add_module() {
	local m=${1//-/_} dep f
	[ -n "${done_mod[$m]:-}" ] && return 0
	done_mod[$m]=1
	if grep -qE "/${m//_/[-_]}\.ko$" "$mods/modules.builtin" 2>/dev/null; then
		return 0 # built in
	fi
	f=${file_of[$m]:-}
	[ -n "$f" ] || die "module $m not found under $mods"
	for dep in $("$modinfo" -F depends "$f" | tr ',' ' '); do
		add_module "$dep"
	done
	cp "$f" "$dest/modules/"
	basename "$f" >>"$dest/modules/order"
}
for m in $MODULES; do
	add_module "$m"
done
if [ -f "$dest/config" ]; then
	for opt in CONFIG_BROADCAST_TLB_FLUSH=y CONFIG_SWAP=y CONFIG_ZSMALLOC=y; do
		grep -qx "$opt" "$dest/config" || say "warning: $release lacks $opt"
	done
fi
echo "$release" >"$dest/release.txt"
say "ok: $release: build/linux/vmlinuz, modules $(tr '\n' ' ' <"$dest/modules/order")"
say "next: make linux; ./run-qemu.sh --linux"
