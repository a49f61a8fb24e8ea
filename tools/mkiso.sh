#!/bin/bash
# Build a hybrid boot image of the harness with GRUB (grub-mkrescue): it
# boots from a CD or a USB stick (dd it onto the whole device), under BIOS
# (El Torito / MBR, i386-pc) and UEFI (x86_64-efi), and loads the kernel
# with multiboot2.
#
#   tools/mkiso.sh OUT.iso [--elf PATH] [--timeout SECONDS] [--entry-args "ARGS"]
#
#   --elf PATH          kernel to put in as /boot/shootdown.elf
#                       (default build/shootdown.elf)
#   --timeout SECONDS   how long GRUB's menu waits (default 5; 0 boots the
#                       default entry at once)
#   --entry-args ARGS   one menu entry only, running the kernel with ARGS:
#                       for automated runs (run-qemu.sh --boot bios|uefi)
#
# The menu talks on COM1 (115200 8N1) as well as on the screen, so that it can
# be driven over a BMC's serial-over-LAN. The image is reproducible: the same
# kernel and options give the same bytes (dates come from SOURCE_DATE_EPOCH,
# else from the last commit).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
prog=mkiso

die() {
	echo "$prog: $*" >&2
	exit 1
}

usage() {
	# The comment block at the top of this file.
	awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}

out=""
elf="$root/build/shootdown.elf"
timeout=5
entry_args=""
one_entry=0
while [ $# -gt 0 ]; do
	case "$1" in
	--elf)
		[ $# -ge 2 ] || die "--elf needs a path"
		elf=$2
		shift 2
		;;
	--timeout)
		[ $# -ge 2 ] || die "--timeout needs a number of seconds"
		timeout=$2
		shift 2
		;;
	--entry-args)
		[ $# -ge 2 ] || die "--entry-args needs an argument (may be \"\")"
		entry_args=$2
		one_entry=1
		shift 2
		;;
	-h | --help)
		usage
		exit 0
		;;
	-*) die "unknown option '$1' (try --help)" ;;
	*)
		[ -z "$out" ] || die "more than one output file given ('$out', '$1')"
		out=$1
		shift
		;;
	esac
done
[ -n "$out" ] || {
	usage >&2
	exit 2
}
[[ $timeout =~ ^[0-9]+$ ]] || die "--timeout wants whole seconds, not '$timeout'"
[ -f "$elf" ] || die "kernel '$elf' not found (run make first)"

# Every tool and GRUB platform that grub-mkrescue silently depends on, with
# the Debian package that has it: a missing platform would otherwise give an
# image that only boots one way.
need() {
	command -v "$1" >/dev/null || die "'$1' not found: apt-get install $2"
}
need grub-mkrescue grub-common
need xorriso xorriso
need mformat mtools
[ -f /usr/lib/grub/i386-pc/boot.img ] ||
	die "GRUB for BIOS (/usr/lib/grub/i386-pc) not found: apt-get install grub-pc-bin"
[ -f /usr/lib/grub/x86_64-efi/kernel.img ] ||
	die "GRUB for UEFI (/usr/lib/grub/x86_64-efi) not found: apt-get install grub-efi-amd64-bin"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mkiso.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
stage="$tmp/iso"
mkdir -p "$stage/boot/grub"
cp "$elf" "$stage/boot/shootdown.elf"

# GRUB's script language splits and expands like a shell: a word with
# anything but plain characters is put in single quotes so that `$`, `;`,
# `#` or quotes reach the kernel as typed.
grub_word() {
	if [[ $1 =~ ^[A-Za-z0-9_=,.:/+@%-]+$ ]]; then
		printf '%s' "$1"
	else
		printf "'%s'" "${1//\'/\'\\\'\'}"
	fi
}

# The kernel arguments as GRUB words. GRUB hands multiboot2 the words joined
# by single spaces (without the kernel's path), and puts a backslash before
# any quote or backslash in them: it's arrives as it\'s.
grub_args() {
	local w out=""
	set -f # split on whitespace, but never glob
	# shellcheck disable=SC2086
	for w in $1; do
		out="$out $(grub_word "$w")"
	done
	set +f
	printf '%s' "$out"
}

# One menu entry: title, then the kernel arguments.
entry() {
	printf 'menuentry %s {\n\tmultiboot2 /boot/shootdown.elf%s\n\tboot\n}\n' \
		"$(grub_word "$1")" "$(grub_args "$2")"
}

{
	echo "# Written by tools/mkiso.sh. Kernel arguments: see docs/ or the 'help' entry."
	echo "serial --unit=0 --speed=115200 --word=8 --parity=no --stop=1"
	echo "terminal_input serial console"
	echo "terminal_output serial console"
	echo "set timeout=$timeout"
	echo "set default=0"
	if [ "$one_entry" = 1 ]; then
		entry "shootdown $entry_args" "$entry_args"
	else
		entry "shootdown: all experiments" ""
		entry "shootdown: quick run (bench=none)" "bench=none"
		for b in primitives shootdown reclaim flushloop; do
			entry "shootdown: $b only" "bench=$b"
		done
		entry "shootdown: console on COM2" "console=com2"
		entry "shootdown: help (list the kernel arguments)" "help"
	fi
} >"$stage/boot/grub/grub.cfg"

# Reproducible dates: everything in the image (files, volume, the FAT of the
# EFI system partition) gets one timestamp.
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git -C "$root" log -1 --format=%ct 2>/dev/null || true)
	[ -n "$SOURCE_DATE_EPOCH" ] || SOURCE_DATE_EPOCH=0
fi
export SOURCE_DATE_EPOCH
find "$stage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

# grub-mkrescue formats the EFI system partition image with mformat, which
# picks a random volume serial number; a wrapper found first on PATH fixes
# it (mtools already takes its file dates from SOURCE_DATE_EPOCH).
mkdir -p "$tmp/bin"
printf '#!/bin/sh\nexec %s -N %08x "$@"\n' "$(command -v mformat)" \
	$((SOURCE_DATE_EPOCH & 0xffffffff)) >"$tmp/bin/mformat"
chmod +x "$tmp/bin/mformat"

# xorriso's dates, as YYYYMMDDhhmmsscc in UTC.
stamp=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y%m%d%H%M%S00)

mkdir -p "$(dirname "$out")"
# Only what a multiboot2 boot over serial and screen needs: no translations,
# fonts or themes (smaller, faster, and nothing host-dependent). The options
# after `--` are xorriso commands: one date for every file (GRUB's modules
# are copied in with today's), for the volume and for its UUID, and the GPT's
# GUIDs derived from that UUID instead of drawn at random.
if ! PATH="$tmp/bin:$PATH" grub-mkrescue -o "$out.tmp" --locales= --fonts= --themes= \
	"$stage" -- -volume_date all_file_dates "$stamp" -volume_date uuid "$stamp" \
	-volume_date c "$stamp" -volume_date m "$stamp" \
	-boot_image any gpt_disk_guid=volume_date_uuid >"$tmp/log" 2>&1; then
	cat "$tmp/log" >&2
	rm -f "$out.tmp"
	die "grub-mkrescue failed (output above)"
fi
mv -f "$out.tmp" "$out"
