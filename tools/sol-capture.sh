#!/bin/bash
# Capture a run of the harness from a server's BMC over IPMI serial-over-LAN
# (SOL), then check the log.
#
#   tools/sol-capture.sh -H BMC -U USER (-P PASSWORD | -E | -f FILE)
#                        [-o LOG] [--timeout SECONDS] [--power-cycle]
#                        [--json OUT] [--expect-status N|any] [-I INTERFACE]
#
#   -H BMC             the BMC's host name or address
#   -U USER            BMC user
#   -P PASSWORD        its password (visible to other users in ps: prefer
#                      -E, which reads the IPMI_PASSWORD variable, or -f FILE,
#                      a file holding it)
#   -o LOG             where the console goes (default
#                      sol-BMC-YYYYmmdd-HHMMSS.log here)
#   --timeout SECONDS  give up after this long without the EXIT: line
#                      (default 3600: firmware, GRUB's menu and a full run
#                      on a big server fit with room to spare)
#   --power-cycle      once SOL is active, power-cycle the server
#                      (ipmitool chassis power cycle), so that the capture
#                      starts with the firmware and GRUB's menu; without it,
#                      power the server on or reset it yourself
#   --json OUT         also write the @json records there, one a line
#   --expect-status N  the guest's EXIT status the run must end with
#                      (default 0: everything passed; 1, 38 or 63; any:
#                      only check that the log is complete and well formed)
#   -I INTERFACE       ipmitool's interface (default lanplus, IPMI 2.0)
#
# It deactivates any SOL session left open on the BMC, activates one with
# `ipmitool -I lanplus -H BMC -U USER ... sol activate`, and writes
# everything that comes to LOG and to the screen. It stops at the harness's
# last line (`EXIT: STATUS=n`, docs/output.md) or at the timeout, closes the
# session (sol deactivate), and checks LOG (tools/shootdown.py check, the
# same checks as tools/checklog.py). When this script's input is a
# terminal, what you type goes to the server, so GRUB's menu can be driven:
# press an entry's hotkey, e.g. 2 for everything with the console on COM2
# (`~.` ends the session at once).
#
# Exit status: the checker's: 0 the log is complete, well formed and ends
# with the expected status; 1 it does not (a failed check in the run, a
# timeout, a lost line, nothing captured: the lines above say which); 2 a
# usage error or a missing tool.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
prog=sol-capture
# The checker; SOL_CHECKER replaces it (a command taking LOG and checklog's
# options).
if [ -n "${SOL_CHECKER:-}" ]; then
	checker=("$SOL_CHECKER")
else
	checker=("$root/tools/shootdown.py" check)
fi

usage() {
	# The comment block at the top of this file.
	awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}

die() {
	echo "$prog: $*" >&2
	exit 2
}

say() {
	echo "$prog: $*" >&2
}

host=""
user=""
auth=()
log=""
timeout=3600
# After the EXIT line, how long the rest of the line and anything the BMC
# still buffers is given (seconds; SOL_DRAIN_S: the tests' fake BMC has
# nothing buffered).
drain_s=${SOL_DRAIN_S:-2}
power_cycle=0
json=""
expect=0
interface=lanplus
while [ $# -gt 0 ]; do
	case "$1" in
	-H | -U | -P | -f | -o | --timeout | --json | --expect-status | -I)
		[ $# -ge 2 ] || die "$1 needs a value (try --help)"
		case "$1" in
		-H) host=$2 ;;
		-U) user=$2 ;;
		-P | -f) auth=("$1" "$2") ;;
		-o) log=$2 ;;
		--timeout) timeout=$2 ;;
		--json) json=$2 ;;
		--expect-status) expect=$2 ;;
		-I) interface=$2 ;;
		esac
		shift 2
		;;
	-E)
		auth=(-E)
		shift
		;;
	--power-cycle)
		power_cycle=1
		shift
		;;
	-h | --help)
		usage
		exit 0
		;;
	*) die "unknown argument '$1' (try --help)" ;;
	esac
done
[ -n "$host" ] || die "-H BMC is required (try --help)"
[ -n "$user" ] || die "-U USER is required (try --help)"
[ ${#auth[@]} -gt 0 ] || die "give the password: -P PASSWORD, -E (IPMI_PASSWORD) or -f FILE"
if [ "${auth[0]}" = -E ] && [ -z "${IPMI_PASSWORD:-}" ]; then
	die "-E reads the password from IPMI_PASSWORD, which is not set"
fi
if [ "${auth[0]}" = -f ] && [ ! -r "${auth[1]}" ]; then
	die "-f: cannot read '${auth[1]}'"
fi
[[ $timeout =~ ^[1-9][0-9]*$ ]] || die "--timeout wants whole seconds, not '$timeout'"
# The guest's statuses, from the one table of them (tools/exitcodes.py).
statuses=$(python3 -B -c 'import sys; sys.path.insert(0, sys.argv[1]); import exitcodes
print(*sorted(exitcodes.GUEST_STATUS))' "$root/tools")
if [ "$expect" = any ]; then
	expect_args=()
elif [[ " $statuses " == *" $expect "* ]]; then
	expect_args=(--expect-status "$expect")
else
	die "--expect-status: '$expect' is not ${statuses// /, } or any"
fi
command -v ipmitool >/dev/null || die "ipmitool not found: apt-get install ipmitool"
[ -n "$log" ] || log="sol-$host-$(date +%Y%m%d-%H%M%S).log"
mkdir -p "$(dirname "$log")"
: >"$log" || die "cannot write '$log'"

ipmi=(ipmitool -I "$interface" -H "$host" -U "$user" "${auth[@]}")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sol-capture.XXXXXX")
sol_pid=""
tty_state=""
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	if [ -n "$sol_pid" ] && kill -0 "$sol_pid" 2>/dev/null; then
		kill "$sol_pid" 2>/dev/null || true
		wait "$sol_pid" 2>/dev/null || true
	fi
	# ipmitool puts a terminal in raw mode and, killed, does not undo it.
	[ -z "$tty_state" ] || stty "$tty_state" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT TERM HUP

# The BMC's SOL line speed must be the harness's (115200, and GRUB's): at
# another speed the console is garbage or nothing.
if "${ipmi[@]}" sol info >"$tmp/info" 2>&1; then
	rates=$(sed -n 's/^ *\(Non-\)\{0,1\}[Vv]olatile Bit Rate[^:]*: *//p' "$tmp/info" | sort -u)
	for r in $rates; do
		[ "$r" = 115.2 ] ||
			say "warning: the BMC's SOL bit rate is $r kbps, the harness prints at 115.2 (ipmitool ... sol set non-volatile-bit-rate 115.2, and volatile-bit-rate)"
	done
else
	say "warning: could not read the SOL settings (ipmitool sol info): $(head -n 1 "$tmp/info")"
fi

# A session left open (an earlier capture, a web console) blocks activate.
"${ipmi[@]}" sol deactivate >/dev/null 2>&1 || true

# ipmitool ends its session when its input ends. A terminal is handed on
# (a background job would otherwise read /dev/null); other input is
# replaced by a pipe that never ends (we hold its write side open).
if [ -t 0 ]; then
	tty_state=$(stty -g 2>/dev/null || true)
	exec 3<&0
else
	mkfifo "$tmp/in"
	exec 3<>"$tmp/in"
fi
"${ipmi[@]}" sol activate <&3 >"$log" 2>"$tmp/err" &
sol_pid=$!
say "capturing the console of $host into $log (until EXIT: STATUS, at most ${timeout}s)"

# The screen shows the console as it comes.
tail -n +1 -f "$log" --pid="$sol_pid" 2>/dev/null &
tail_pid=$!

if [ "$power_cycle" = 1 ]; then
	sleep 1
	if ! "${ipmi[@]}" chassis power cycle >"$tmp/power" 2>&1; then
		say "warning: chassis power cycle failed: $(head -n 1 "$tmp/power")"
	fi
fi

# The harness's last line: the run is over.
exit_re='EXIT: STATUS=[0-9]+'
ended=""
start=$(date +%s)
while :; do
	if grep -aqE "$exit_re" "$log"; then
		sleep "$drain_s" # the rest of the line, and what the BMC still holds
		ended="exit"
		break
	fi
	if ! kill -0 "$sol_pid" 2>/dev/null; then
		ended="ipmitool"
		break
	fi
	if [ $(($(date +%s) - start)) -ge "$timeout" ]; then
		ended="timeout"
		break
	fi
	sleep 0.2 # a grep of the log: cheap, and the EXIT line is seen at once
done

if kill -0 "$sol_pid" 2>/dev/null; then
	kill "$sol_pid" 2>/dev/null || true
	wait "$sol_pid" 2>/dev/null || true
	sol_status=0
else
	sol_status=0
	wait "$sol_pid" 2>/dev/null || sol_status=$?
fi
sol_pid=""
kill "$tail_pid" 2>/dev/null || true
wait "$tail_pid" 2>/dev/null || true
"${ipmi[@]}" sol deactivate >/dev/null 2>&1 || true
[ -z "$tty_state" ] || stty "$tty_state" 2>/dev/null || true
echo >&2

case "$ended" in
exit) say "the run ended: $(grep -aoE "$exit_re" "$log" | tail -n 1)" ;;
timeout) say "timed out after ${timeout}s without an EXIT: line" ;;
ipmitool)
	say "ipmitool ended (status $sol_status) before the EXIT: line:"
	sed "s/^/$prog:   /" "$tmp/err" >&2
	;;
esac

json_args=()
[ -z "$json" ] || json_args=(--json "$json")
status=0
"${checker[@]}" "$log" "${expect_args[@]}" "${json_args[@]}" || status=$?
if [ "$status" = 0 ]; then
	if [ "$expect" = any ]; then
		say "$log: complete and well formed"
	else
		say "$log: complete and well formed, EXIT status $expect"
	fi
else
	say "$log: the checker found problems (above): exit $status"
fi
exit "$status"
