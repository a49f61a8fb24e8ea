#!/bin/bash
# Tests of tools/sol-capture.sh against a fake ipmitool (tests/sol/ipmitool)
# that replays saved console logs: a passing run, a failing one, one that
# never reaches its EXIT line (the timeout), a BMC that drops the session,
# a wrong password, a slow SOL line, power cycling, usage errors.
#
#   tests/sol/test_sol_capture.sh
#
# Prints TAP ("ok N - what" / "not ok N - what" with the reason), then
# "N passed, N failed"; exits 1 if anything failed.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
samples=$root/tests/qemu/samples
capture=$root/tools/sol-capture.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-sol.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

export PATH="$here:$PATH"
export FAKE_IPMI_CALLS="$tmp/calls" FAKE_SOL_PIDS="$tmp/pids"
# The fake BMC holds nothing back after the EXIT line.
export SOL_DRAIN_S=0.2
n=0
failed=0
passed=0

# run NAME STATUS [VAR=VALUE...] -- ARGS: runs sol-capture with ARGS (and the
# variables set) and checks its exit status; its output is in $out.
run() {
	local name=$1 want=$2 status=0
	shift 2
	local vars=()
	while [ "$1" != -- ]; do
		vars+=("$1")
		shift
	done
	shift
	: >"$FAKE_IPMI_CALLS"
	: >"$FAKE_SOL_PIDS"
	out=$(env "${vars[@]}" "$capture" "$@" </dev/null 2>&1) || status=$?
	case_name=$name
	problems=()
	[ "$status" = "$want" ] || problems+=("exit status $status, expected $want")
}

# expect_out REGEX: sol-capture's output has a line matching REGEX.
expect_out() {
	grep -qE -- "$1" <<<"$out" || problems+=("no output line matches /$1/")
}

# expect_call REGEX / no_call REGEX: the fake ipmitool was (not) called so.
expect_call() {
	grep -qE -- "$1" "$FAKE_IPMI_CALLS" || problems+=("no ipmitool call matches /$1/")
}
no_call() {
	! grep -qE -- "$1" "$FAKE_IPMI_CALLS" || problems+=("an ipmitool call matches /$1/")
}

# The session was closed: the SOL process is gone and `sol deactivate` came
# after `sol activate`.
expect_closed() {
	local pid
	while read -r pid; do
		! kill -0 "$pid" 2>/dev/null || problems+=("ipmitool sol activate (pid $pid) still runs")
	done <"$FAKE_SOL_PIDS"
	tail -n 1 "$FAKE_IPMI_CALLS" | grep -q 'sol deactivate$' ||
		problems+=("the last ipmitool call is not sol deactivate: $(tail -n 1 "$FAKE_IPMI_CALLS")")
}

done_case() {
	n=$((n + 1))
	if [ ${#problems[@]} -eq 0 ]; then
		echo "ok $n - $case_name"
		passed=$((passed + 1))
	else
		echo "not ok $n - $case_name: ${problems[0]}"
		for p in "${problems[@]}"; do echo "#   $p"; done
		tail -n 15 <<<"$out" | sed 's/^/#   | /'
		failed=$((failed + 1))
	fi
}

bmc=(-H bmc.example -U admin -P secret)

run "a passing run: captured, checked, session closed" 0 \
	FAKE_SOL_REPLAY="$samples/good-kernel.log" -- "${bmc[@]}" -o "$tmp/good.log" \
	--json "$tmp/good.jsonl" --timeout 60
expect_out '^sol-capture: the run ended: EXIT: STATUS=0$'
expect_out 'good.log: complete and well formed, EXIT status 0$'
expect_call '^-I lanplus -H bmc.example -U admin -P secret sol activate$'
expect_closed
grep -q 'EXIT: STATUS=0' "$tmp/good.log" || problems+=("the log has no EXIT line")
[ "$(grep -c '"seq"' "$tmp/good.jsonl" 2>/dev/null)" = \
	"$(grep -c '^@json ' "$samples/good-kernel.log")" ] || problems+=("--json: not every record written")
done_case

run "COM2 through GRUB (a fresh QEMU log with GRUB's menu)" 0 \
	FAKE_SOL_REPLAY="$here/com2-grub-bios.log" -- "${bmc[@]}" -o "$tmp/com2.log" --timeout 60
expect_out 'com2.log: complete and well formed'
expect_closed
done_case

run "a failing run: the checker's status 1" 1 \
	FAKE_SOL_REPLAY="$samples/good-fail.log" -- "${bmc[@]}" -o "$tmp/fail.log" --timeout 60
expect_out '^sol-capture: the run ended: EXIT: STATUS=1$'
expect_out 'EXIT status 1, expected 0'
expect_out 'the checker found problems \(above\): exit 1$'
expect_closed
done_case

run "a failing run, --expect-status 1" 0 \
	FAKE_SOL_REPLAY="$samples/good-fail.log" -- "${bmc[@]}" -o "$tmp/fail1.log" \
	--timeout 60 --expect-status 1
expect_out 'complete and well formed, EXIT status 1$'
done_case

start=$(date +%s)
run "no EXIT line: stops at the timeout" 1 \
	FAKE_SOL_REPLAY="$samples/bad-truncated.log" -- "${bmc[@]}" -o "$tmp/trunc.log" --timeout 3
expect_out '^sol-capture: timed out after 3s without an EXIT: line$'
expect_out 'no EXIT: STATUS line'
expect_closed
took=$(($(date +%s) - start))
[ "$took" -le 15 ] || problems+=("took ${took}s for a 3 s timeout")
done_case

run "the BMC drops the session before the EXIT line" 1 \
	FAKE_SOL_REPLAY="$samples/bad-truncated.log" FAKE_SOL_AFTER=exit -- "${bmc[@]}" \
	-o "$tmp/drop.log" --timeout 60
expect_out '^sol-capture: ipmitool ended \(status 0\) before the EXIT: line'
expect_closed
done_case

run "a wrong password: ipmitool's error shown, nothing captured" 1 \
	FAKE_SOL_REPLAY="$samples/good-kernel.log" FAKE_SOL_FAIL=1 -- "${bmc[@]}" \
	-o "$tmp/auth.log" --timeout 60
expect_out 'ipmitool ended \(status 1\) before the EXIT: line'
expect_out 'Unable to establish IPMI v2 / RMCP\+ session'
expect_out 'no protocol line at all'
done_case

run "a SOL bit rate other than 115.2 is named" 0 \
	FAKE_SOL_REPLAY="$samples/good-kernel.log" FAKE_SOL_RATE=9.6 -- "${bmc[@]}" \
	-o "$tmp/rate.log" --timeout 60
expect_out "warning: the BMC's SOL bit rate is 9.6 kbps"
done_case

run "--power-cycle after activate; -E keeps the password off the command line" 0 \
	FAKE_SOL_REPLAY="$samples/good-kernel.log" IPMI_PASSWORD=secret -- \
	-H bmc.example -U admin -E -o "$tmp/power.log" --timeout 60 --power-cycle
expect_call '^-I lanplus -H bmc.example -U admin -E chassis power cycle$'
no_call 'secret'
[ "$(grep -n 'sol activate' "$FAKE_IPMI_CALLS" | cut -d: -f1)" -lt \
	"$(grep -n 'power cycle' "$FAKE_IPMI_CALLS" | cut -d: -f1)" ] ||
	problems+=("power cycle came before sol activate")
expect_closed
done_case

run "without --power-cycle, no power command" 0 \
	FAKE_SOL_REPLAY="$samples/good-kernel.log" -- "${bmc[@]}" -o "$tmp/nopower.log" --timeout 60
no_call 'power'
done_case

# On a terminal, what is typed reaches the server (GRUB's menu): the fake
# replays nothing until a key comes. script(1) gives sol-capture a terminal.
n_tty_keys="$tmp/keys"
case_name="a terminal: typed keys reach the server, the session ends at EXIT"
problems=()
: >"$FAKE_IPMI_CALLS"
: >"$FAKE_SOL_PIDS"
if ! command -v script >/dev/null; then
	problems=()
	case_name="$case_name # SKIP no script(1) (util-linux)"
	out=""
else
	status=0
	out=$( (
		sleep 2
		printf '2\n'
		sleep 6
	) | FAKE_SOL_REPLAY="$samples/good-kernel.log" FAKE_SOL_KEY="$n_tty_keys" \
		timeout 60 script -qec "$capture -H bmc.example -U admin -P secret -o $tmp/tty.log --timeout 30" \
		/dev/null 2>&1) || status=$?
	[ "$status" = 0 ] || problems+=("exit status $status, expected 0")
	[ "$(cat "$n_tty_keys" 2>/dev/null)" = 2 ] || problems+=("the fake BMC got no key '2'")
	expect_out 'tty.log: complete and well formed, EXIT status 0'
	expect_closed
fi
done_case

run "usage: no user" 2 -- -H bmc.example -P x
expect_out 'sol-capture: -U USER is required'
done_case

run "usage: no password" 2 -- -H bmc.example -U admin
expect_out 'give the password'
done_case

run "usage: -E without IPMI_PASSWORD" 2 IPMI_PASSWORD= -- -H bmc.example -U admin -E
expect_out 'IPMI_PASSWORD, which is not set'
done_case

run "usage: a bad timeout" 2 -- "${bmc[@]}" --timeout 5m
expect_out "--timeout wants whole seconds, not '5m'"
done_case

run "usage: a bad --expect-status" 2 -- "${bmc[@]}" --expect-status 2
expect_out "is not 0, 1, 38, 63 or any"
done_case

run "no ipmitool" 2 PATH=/usr/bin:/bin -- "${bmc[@]}"
if command -v ipmitool >/dev/null 2>&1 && PATH=/usr/bin:/bin command -v ipmitool >/dev/null; then
	problems=() # a real ipmitool is installed: this case cannot be made here
	case_name="$case_name # SKIP ipmitool is installed in /usr/bin"
else
	expect_out 'ipmitool not found: apt-get install ipmitool'
fi
done_case

echo "1..$n"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
