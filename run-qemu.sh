#!/bin/bash
# Boot the harness under QEMU, stream its serial console to stdout, and exit
# with what the run came to (PROTOCOL.md, "Ending a run").
#
# usage: ./run-qemu.sh [options] [-- KERNEL ARGS...]
#
#   --boot kernel|bios|uefi   how to boot (default kernel):
#                               kernel  QEMU's own multiboot1 loader (-kernel)
#                               bios    GRUB (multiboot2) from an ISO, SeaBIOS
#                               uefi    GRUB (multiboot2) from an ISO, OVMF
#   --smp N                   CPUs (default 4)
#   --mem SIZE                memory, as QEMU's -m takes it (default 1G)
#   --machine q35|pc          machine type (default q35)
#   --cpu MODEL               CPU model (default max)
#   --accel auto|kvm|tcg      auto: KVM where /dev/kvm is usable, else TCG
#   --tcg-threads single|multi
#                             single (default): all vCPUs on one host thread;
#                             multi: MTTCG, slower when vCPUs outnumber host
#                             cores (see DESIGN.md)
#   --timeout SECONDS         kill QEMU after this long (default 300)
#   --log FILE                write the whole console to FILE
#   --json FILE               write the @json records to FILE, one a line
#   --qemu PATH               QEMU binary (default qemu-system-x86_64); for an
#                             unpacked tree (PREFIX/bin/...) its firmware and
#                             libraries are used too
#   --qemu10                  the QEMU 10 unpacked by tools/fetch-qemu10.sh
#   --qemu-data DIR           one more firmware directory (QEMU's -L)
#   --qemu-arg ARG            pass ARG to QEMU as it is (repeatable)
#   --kernel PATH             boot this ELF (default build/shootdown.elf,
#                             built with make first)
#   --iso PATH                with bios|uefi: boot this ISO as it is (its own
#                             menu; no kernel arguments), e.g. `make iso`'s
#   --no-build                do not run make first
#   --keep-iso                keep the per-run ISO in build/run/
#   --dry-run                 print the QEMU command line and stop
#   -v, --verbose             print the QEMU command line before running it
#   -h, --help                this text
#
# Exit status: 0 passed, 1 a check failed, 77 every check skipped, 2 usage or
# environment error (missing tool, KVM asked for but absent, build failed),
# 3 aborted (guest status 63, or QEMU ended without the guest reaching the
# exit device), 124 timed out, 130 interrupted.
#
# Examples:
#   ./run-qemu.sh -- bench=none
#   ./run-qemu.sh --boot uefi --smp 2 --log build/uefi.log -- selftest=fail
set -uo pipefail

root=$(cd "$(dirname "$0")" && pwd)
prog=run-qemu

# Exit statuses (PROTOCOL.md).
readonly E_PASS=0 E_FAIL=1 E_USAGE=2 E_ABORT=3 E_SKIP=77 E_TIMEOUT=124 E_INTR=130

boot=kernel smp=4 mem=1G machine=q35 cpu=max accel=auto tcg_threads=single
timeout_s=300 log_file="" json_file="" qemu="" kernel="" iso="" build=1
keep_iso=0 dry_run=0 verbose=0
data_dirs=() qemu_extra=() kargs=()

# The comment block at the top of this file.
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
err() { echo "$prog: $*" >&2; }
usage_error() {
	err "$*"
	err "try: $0 --help"
	exit "$E_USAGE"
}

# needs_value OPTION REMAINING-COUNT: the option must have an argument.
needs_value() { [ "$2" -ge 2 ] || usage_error "$1 needs a value"; }

while [ $# -gt 0 ]; do
	case "$1" in
	--boot) needs_value "$1" $# && boot=$2 && shift ;;
	--smp) needs_value "$1" $# && smp=$2 && shift ;;
	--mem) needs_value "$1" $# && mem=$2 && shift ;;
	--machine) needs_value "$1" $# && machine=$2 && shift ;;
	--cpu) needs_value "$1" $# && cpu=$2 && shift ;;
	--accel) needs_value "$1" $# && accel=$2 && shift ;;
	--tcg-threads) needs_value "$1" $# && tcg_threads=$2 && shift ;;
	--timeout) needs_value "$1" $# && timeout_s=$2 && shift ;;
	--log) needs_value "$1" $# && log_file=$2 && shift ;;
	--json) needs_value "$1" $# && json_file=$2 && shift ;;
	--qemu) needs_value "$1" $# && qemu=$2 && shift ;;
	--qemu10) qemu="$root/build/qemu10/usr/bin/qemu-system-x86_64" ;;
	--qemu-data) needs_value "$1" $# && data_dirs+=("$2") && shift ;;
	--qemu-arg) needs_value "$1" $# && qemu_extra+=("$2") && shift ;;
	--kernel) needs_value "$1" $# && kernel=$2 && build=0 && shift ;;
	--iso) needs_value "$1" $# && iso=$2 && build=0 && shift ;;
	--no-build) build=0 ;;
	--keep-iso) keep_iso=1 ;;
	--dry-run) dry_run=1 ;;
	-v | --verbose) verbose=1 ;;
	-h | --help)
		usage
		exit 0
		;;
	--)
		shift
		kargs=("$@")
		break
		;;
	*) usage_error "unknown option '$1'" ;;
	esac
	shift
done

# --- check the options --------------------------------------------------

case "$boot" in kernel | bios | uefi) ;; *) usage_error "--boot: '$boot' is not kernel, bios or uefi" ;; esac
case "$machine" in q35 | pc) ;; *) usage_error "--machine: '$machine' is not q35 or pc" ;; esac
case "$accel" in auto | kvm | tcg) ;; *) usage_error "--accel: '$accel' is not auto, kvm or tcg" ;; esac
case "$tcg_threads" in single | multi) ;; *) usage_error "--tcg-threads: '$tcg_threads' is not single or multi" ;; esac
[[ $smp =~ ^[1-9][0-9]*$ ]] || usage_error "--smp: '$smp' is not a positive number"
[[ $mem =~ ^[1-9][0-9]*[KMGT]?$ ]] || usage_error "--mem: '$mem' is not a size like 512M or 1G"
[[ $timeout_s =~ ^[1-9][0-9]*$ ]] || usage_error "--timeout: '$timeout_s' is not a positive number of seconds"
if [ -n "$iso" ]; then
	[ "$boot" != kernel ] || usage_error "--iso needs --boot bios or --boot uefi"
	[ ${#kargs[@]} -eq 0 ] || usage_error "--iso boots the ISO's own menu: kernel arguments cannot be passed"
	[ -f "$iso" ] || usage_error "--iso: '$iso' not found"
fi
# The kernel reads its arguments as one line of words.
cmdline="${kargs[*]}"

# --- QEMU and its firmware ----------------------------------------------

# On a fresh machine: as root, install what is missing (Debian packages,
# through the project's own script); otherwise say what to run.
if ! "$root/tools/install-deps.sh" --quiet >&2; then
	err "missing dependencies: see above (tools/install-deps.sh)"
	exit "$E_USAGE"
fi

if [ -z "$qemu" ]; then
	qemu=$(command -v qemu-system-x86_64) ||
		{ err "qemu-system-x86_64 not found: apt-get install qemu-system-x86"; exit "$E_USAGE"; }
elif [ ! -x "$qemu" ]; then
	if [ "$qemu" = "$root/build/qemu10/usr/bin/qemu-system-x86_64" ]; then
		err "QEMU 10 is not unpacked: run tools/fetch-qemu10.sh (or tools/install-deps.sh --qemu10)"
	else
		err "--qemu: '$qemu' is not an executable"
	fi
	exit "$E_USAGE"
fi

# A QEMU unpacked outside /usr (tools/fetch-qemu10.sh) must use its own ROMs,
# SeaBIOS, modules and libraries, not the system QEMU's: -L directories are
# searched before the built-in ones, so add them first.
prefix=$(cd "$(dirname "$qemu")/.." && pwd)
if [ "$prefix" != /usr ] && [ "$prefix" != /usr/local ]; then
	own=()
	for d in "$prefix/share/qemu" "$prefix/share/seabios"; do
		[ -d "$d" ] && own+=("$d")
	done
	data_dirs=("${own[@]}" "${data_dirs[@]}")
	if [ -d "$prefix/lib/x86_64-linux-gnu" ]; then
		export LD_LIBRARY_PATH="$prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
		[ -d "$prefix/lib/x86_64-linux-gnu/qemu" ] &&
			export QEMU_MODULE_DIR="$prefix/lib/x86_64-linux-gnu/qemu"
	fi
fi

if [ "$accel" = auto ]; then
	if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then accel=kvm; else accel=tcg; fi
elif [ "$accel" = kvm ] && ! { [ -r /dev/kvm ] && [ -w /dev/kvm ]; }; then
	err "--accel kvm: /dev/kvm is missing or not read/writable by $(id -un) (no KVM on this machine, or not in group kvm)"
	exit "$E_USAGE"
fi

ovmf_code=/usr/share/OVMF/OVMF_CODE_4M.fd
ovmf_vars=/usr/share/OVMF/OVMF_VARS_4M.fd
if [ "$boot" = uefi ] && { [ ! -f "$ovmf_code" ] || [ ! -f "$ovmf_vars" ]; }; then
	err "UEFI firmware $ovmf_code not found: apt-get install ovmf"
	exit "$E_USAGE"
fi

# --- temporary files, and what to do on the way out -----------------------

tmp=$(mktemp -d "${TMPDIR:-/tmp}/run-qemu.XXXXXX") || { err "mktemp failed"; exit "$E_USAGE"; }
run_iso=""
qemu_pid=""
tee_pid=""
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	[ -n "$run_iso" ] && [ "$keep_iso" = 0 ] && rm -f "$run_iso"
	rm -rf "$tmp"
}
trap cleanup EXIT

# Ctrl-C or a TERM (a test runner giving up): stop QEMU, keep what was
# logged, say so. QEMU runs under timeout(1) in its own process group, so
# the terminal's SIGINT reaches only us; we pass it on as TERM.
# shellcheck disable=SC2317 # called by the INT and TERM traps
on_signal() {
	trap '' INT TERM
	if [ -n "$qemu_pid" ]; then
		kill -TERM "$qemu_pid" 2>/dev/null
		wait "$qemu_pid" 2>/dev/null
	fi
	exec 3>&-
	[ -n "$tee_pid" ] && wait "$tee_pid" 2>/dev/null
	err "interrupted by SIG$1; QEMU stopped: exit $E_INTR"
	exit "$E_INTR"
}
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM

# --- build --------------------------------------------------------------

if [ -z "$kernel" ]; then
	kernel="$root/build/shootdown.elf"
	if [ "$build" = 1 ] && [ "$dry_run" = 0 ]; then
		make -C "$root" -s >&2 || { err "make failed"; exit "$E_USAGE"; }
	fi
fi
if [ -z "$iso" ] && [ ! -f "$kernel" ]; then
	err "kernel '$kernel' not found (run make)"
	exit "$E_USAGE"
fi
# QEMU's multiboot loader puts the image path in front of the arguments;
# the kernel skips a first word that starts with '/', so make it absolute.
kernel=$(realpath "$kernel" 2>/dev/null || echo "$kernel")

if [ "$boot" != kernel ] && [ -z "$iso" ]; then
	# A one-entry ISO that boots at once with our arguments, private to
	# this run so that runs in parallel do not share one.
	mkdir -p "$root/build/run"
	run_iso=$(mktemp --suffix=.iso "$root/build/run/run.XXXXXX") || exit "$E_USAGE"
	iso=$run_iso
	if [ "$dry_run" = 0 ]; then
		"$root/tools/mkiso.sh" "$iso" --elf "$kernel" --timeout 0 --entry-args "$cmdline" ||
			{ err "could not build the boot ISO"; exit "$E_USAGE"; }
	fi
fi

# --- the QEMU command line ------------------------------------------------

cmd=("$qemu" -nodefaults -no-user-config -display none -no-reboot
	-machine "$machine" -cpu "$cpu" -smp "$smp" -m "$mem")
if [ "$accel" = kvm ]; then
	cmd+=(-accel kvm)
else
	cmd+=(-accel "tcg,thread=$tcg_threads")
fi
for d in "${data_dirs[@]}"; do
	cmd+=(-L "$d")
done
# The console: COM1 on our stdout. Our stdin is never given to QEMU (it is
# </dev/null), so QEMU leaves the terminal alone and a CI job without stdin
# works the same; signal=off: QEMU never treats a byte as Ctrl-C.
# shellcheck disable=SC2054 # the commas are QEMU's
cmd+=(-chardev stdio,id=con,signal=off -serial chardev:con
	-device isa-debug-exit,iobase=0xf4,iosize=0x04)
case "$boot" in
kernel) cmd+=(-kernel "$kernel" -append "$cmdline") ;;
bios) cmd+=(-drive "file=$iso,format=raw,media=cdrom,readonly=on") ;;
uefi)
	cp "$ovmf_vars" "$tmp/OVMF_VARS.fd"
	cmd+=(-drive "if=pflash,format=raw,unit=0,readonly=on,file=$ovmf_code"
		-drive "if=pflash,format=raw,unit=1,file=$tmp/OVMF_VARS.fd"
		-drive "file=$iso,format=raw,media=cdrom,readonly=on")
	;;
esac
cmd+=("${qemu_extra[@]}")

if [ "$dry_run" = 1 ] || [ "$verbose" = 1 ]; then
	printf '%q ' "${cmd[@]}" >&2
	echo >&2
	[ "$dry_run" = 1 ] && exit 0
fi

# --- run ------------------------------------------------------------------

log=${log_file:-$tmp/console.log}
mkdir -p "$(dirname "$log")"
: >"$log" || { err "cannot write '$log'"; exit "$E_USAGE"; }

# tee copies the console to the log as it comes; -i: a Ctrl-C must not cut
# the log short before QEMU has been stopped; -p: nor a reader of our stdout
# that went away (./run-qemu.sh | head).
exec 3> >(exec tee -i -p -- "$log")
tee_pid=$!
t0=$(date +%s%N)
timeout --kill-after=5 "$timeout_s" "${cmd[@]}" </dev/null >&3 &
qemu_pid=$!
wait "$qemu_pid"
qrc=$?
qemu_pid=""
exec 3>&-
wait "$tee_pid" 2>/dev/null
t1=$(date +%s%N)
elapsed=$(((t1 - t0) / 1000000))
elapsed=$((elapsed / 1000)).$(((elapsed % 1000) / 100))

if [ -n "$json_file" ]; then
	mkdir -p "$(dirname "$json_file")"
	sed -n 's/\r$//; s/^@json //p' "$log" >"$json_file"
fi

# --- what did it come to? -------------------------------------------------

# The status the guest printed last (EXIT: STATUS=n), if any.
printed=$(tr -d '\r' <"$log" | sed -n 's/^EXIT: STATUS=\([0-9][0-9]*\)$/\1/p' | tail -n 1)

# end EXIT-STATUS MESSAGE: the one line about how it ended, then exit.
end() {
	err "$2 [${elapsed}s]: exit $1"
	exit "$1"
}

if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	# 137: QEMU ignored the TERM and timeout(1) had to KILL it.
	end "$E_TIMEOUT" "timed out after ${timeout_s}s, QEMU killed${printed:+ (the guest had printed EXIT: STATUS=$printed)}"
fi
if [ "$qrc" = 0 ]; then
	end "$E_ABORT" "aborted: QEMU exited 0, the guest never reached the exit device (reset, triple fault or exit=reboot?)"
fi
if [ $((qrc & 1)) = 0 ] || [ "$qrc" -gt 127 ]; then
	end "$E_ABORT" "aborted: QEMU exited $qrc (killed, or an error of its own)"
fi

status=$((qrc >> 1))
# QEMU's own errors exit 1, the same as guest status 0: only a guest that
# printed EXIT: STATUS=0 has passed.
if [ "$status" = 0 ] && [ "$printed" != 0 ]; then
	if [ ! -s "$log" ]; then
		end "$E_USAGE" "QEMU failed before the guest printed anything (QEMU exit 1; its message is above)"
	fi
	end "$E_ABORT" "aborted: QEMU exited 1 but the console has no EXIT: STATUS=0 (a QEMU error?)"
fi
note=""
if [ "$printed" != "$status" ]; then
	note=" (but the console says ${printed:-nothing}: lines lost?)"
fi
case "$status" in
0) end "$E_PASS" "passed: guest status 0$note" ;;
1) end "$E_FAIL" "failed: guest status 1, a check failed$note" ;;
38) end "$E_SKIP" "skipped: guest status 38, every check skipped$note" ;;
63) end "$E_ABORT" "aborted: guest status 63 (fault, panic or watchdog)$note" ;;
*) end "$E_ABORT" "aborted: guest status $status is not one PROTOCOL.md knows$note" ;;
esac
