#!/bin/bash
# Build a hybrid boot image of the harness with GRUB (grub-mkrescue): it
# boots from a CD or a USB stick (dd it onto the whole device), under BIOS
# (El Torito / MBR, i386-pc) and UEFI (x86_64-efi), and loads the kernel
# with multiboot2.
#
#   tools/mkiso.sh OUT.iso [--elf PATH] [--timeout SECONDS] [--entry-args "ARGS"]
#                  [--grub-cmds FILE] [--linux DIR]
#
#   --elf PATH          kernel to put in as /boot/shootdown.elf
#                       (default build/shootdown.elf)
#   --timeout SECONDS   how long GRUB's menu waits (default 5; 0 boots the
#                       default entry at once)
#   --entry-args ARGS   one menu entry only, running the kernel with ARGS:
#                       for automated runs (run-qemu.sh --boot bios|uefi)
#   --grub-cmds FILE    GRUB commands run before the menu, as they are
#                       (run-qemu.sh --mem-holes: cutmem, a memory map
#                       with holes)
#   --linux DIR         the Linux side too (docs/linux.md): DIR/vmlinuz and
#                       DIR/initramfs.cpio.gz (build/linux: tools/fetch-linux.sh,
#                       make linux) as /boot/linux/, and four entries, [7]-[0]:
#                       INVLPGB as the machine has it and turned off
#                       (clearcpuid=419), each on COM1 and on COM2
#
# The menu talks on COM1 and COM2 (115200 8N1, whichever of them the machine
# has) as well as on the screen, and takes keys from all three, so that it
# can be driven over a BMC's serial-over-LAN on either port. Each entry's
# title names the port its kernel prints on (console=com1 or console=com2),
# and starts with its hotkey in brackets: pressing that key boots it at once
# (arrow keys do not always survive a serial-over-LAN client). The image is
# reproducible: the same kernel and options give the same bytes (dates come
# from SOURCE_DATE_EPOCH, else from the last commit).
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
grub_cmds=""
linux=""
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
	--grub-cmds)
		[ $# -ge 2 ] || die "--grub-cmds needs a file"
		grub_cmds=$2
		shift 2
		;;
	--linux)
		[ $# -ge 2 ] || die "--linux needs a directory (build/linux)"
		linux=$2
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
[ -z "$grub_cmds" ] || [ -f "$grub_cmds" ] || die "--grub-cmds: '$grub_cmds' not found"
if [ -n "$linux" ]; then
	[ -f "$linux/vmlinuz" ] || die "--linux: no $linux/vmlinuz (run tools/fetch-linux.sh)"
	[ -f "$linux/initramfs.cpio.gz" ] || die "--linux: no $linux/initramfs.cpio.gz (run make linux)"
fi

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
if [ -n "$linux" ]; then
	mkdir -p "$stage/boot/linux"
	cp "$linux/vmlinuz" "$linux/initramfs.cpio.gz" "$stage/boot/linux/"
fi

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

# One menu entry: title, the kernel arguments, and optionally a hotkey (a
# key that boots the entry at once from the menu).
entry() {
	local hotkey=""
	[ $# -lt 3 ] || hotkey=" --hotkey=$3"
	printf 'menuentry %s%s {\n\tmultiboot2 /boot/shootdown.elf%s\n\tboot\n}\n' \
		"$(grub_word "$1")" "$hotkey" "$(grub_args "$2")"
}

# A menu entry of the Linux side: title, hotkey, its console (ttyS0 is
# COM1, ttyS1 COM2) and any more boot parameters. panic=-1: a kernel that
# panics reboots rather than hang the lab's machine.
linux_entry() {
	printf 'menuentry %s --hotkey=%s {\n\tlinux /boot/linux/vmlinuz console=%s,115200 panic=-1%s\n\tinitrd /boot/linux/initramfs.cpio.gz\n\tboot\n}\n' \
		"$(grub_word "$1")" "$2" "$3" "${4:+ $4}"
}

# GRUB's terminals: every serial port of COM1 (unit 0) and COM2 (unit 1)
# that GRUB finds, and the screen. `serial` fails for a port that is not
# there, and terminal_input/terminal_output refuse a whole list that names
# a missing terminal, so the list holds only the ports that answered: a
# machine without COM2 keeps its menu on COM1.
terminals() {
	cat <<-'GRUB'
		set sd_terms="console"
		if serial --unit=1 --speed=115200 --word=8 --parity=no --stop=1; then
			set sd_terms="serial_com1 $sd_terms"
		fi
		if serial --unit=0 --speed=115200 --word=8 --parity=no --stop=1; then
			set sd_terms="serial_com0 $sd_terms"
		fi
		terminal_input $sd_terms
		terminal_output $sd_terms
	GRUB
}

{
	echo "# Written by tools/mkiso.sh. Kernel arguments: see docs/ or the 'help' entry."
	terminals
	[ -z "$grub_cmds" ] || cat "$grub_cmds"
	echo "set timeout=$timeout"
	echo "set default=0"
	if [ "$one_entry" = 1 ]; then
		entry "shootdown $entry_args" "$entry_args"
	else
		# The first four are the ones to pick over a BMC: everything, on
		# the port the BMC listens on, halting or rebooting at the end.
		entry "[1] shootdown: all experiments, console COM1" "console=com1" 1
		entry "[2] shootdown: all experiments, console COM2" "console=com2" 2
		entry "[3] shootdown: all experiments, console COM1, reboot at the end" \
			"console=com1 exit=reboot" 3
		entry "[4] shootdown: all experiments, console COM2, reboot at the end" \
			"console=com2 exit=reboot" 4
		entry "[5] shootdown: quick self-check (bench=none), console COM1" \
			"console=com1 bench=none" 5
		entry "[6] shootdown: quick self-check (bench=none), console COM2" \
			"console=com2 bench=none" 6
		# Hotkeys are one character each; c, e and v are GRUB's own keys.
		for b in primitives shootdown reclaim flushloop; do
			k=${b:0:1}
			entry "[$k] shootdown: $b only, console COM1" "console=com1 bench=$b" "$k"
		done
		entry "[h] shootdown: help (list the kernel arguments), console COM1" \
			"console=com1 help" h
		if [ -n "$linux" ]; then
			# The seeds' workloads under Linux, on the same machine
			# (docs/linux.md). Debian's 7.3 ignores clearcpuid=invlpgb;
			# the bit's number (13 * 32 + 3) turns INVLPGB off.
			linux_entry "[7] Linux side: INVLPGB as the machine has it, console COM1" 7 ttyS0
			linux_entry "[8] Linux side: INVLPGB as the machine has it, console COM2" 8 ttyS1
			linux_entry "[9] Linux side: INVLPGB off (clearcpuid=419), console COM1" 9 ttyS0 clearcpuid=419
			linux_entry "[0] Linux side: INVLPGB off (clearcpuid=419), console COM2" 0 ttyS1 clearcpuid=419
		fi
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
