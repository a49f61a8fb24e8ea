#!/usr/bin/env bash
# One command for a CI job: boot the harness under QEMU (KVM unless asked
# otherwise), and leave what a reviewer needs as artifacts in OUTDIR.
#
# usage: tools/ci-run.sh [--install-deps] [--check-args] [--runs N]
#                        [--baseline DIR | --baseline-kernel ELF --baseline-args WORDS]
#                        OUTDIR [run-qemu.sh options] [-- kernel args]
#
#   --install-deps  first install what is missing of what a run needs
#                 (tools/install-deps.sh --job: no optional package), as
#                 root or through `sudo -n` (a CI runner's passwordless sudo)
#   OUTDIR        made if missing; what an earlier run left there is replaced
#   --baseline DIR  an earlier run's OUTDIR (or a directory holding several
#                 of them, one a subdirectory): `tools/shootdown.py compare`
#                 of its console(s) against this run's, the run as the unit;
#                 a significant slowdown fails the job (exit 1). With one
#                 run a side compare cannot tell, and says so (exit 0)
#   --runs N      boot N times (1 to 100), each run's artifacts in
#                 OUTDIR/run-K/ as one run leaves them in OUTDIR; OUTDIR
#                 gets the findings of all of them (answer), one junit.xml
#                 with a testsuite a run, and summary.txt. Exit: the worst
#                 run's (130, 2, 3, 124, 1, 77, 0), 1 for the gate, 2 when
#                 a baseline boot did not pass
#   --baseline-kernel ELF, --baseline-args WORDS  (with --runs) boot the
#                 baseline here too: before each run K, a boot of ELF
#                 (default: the run's kernel) with the kernel arguments
#                 WORDS (default: the run's), same run-qemu.sh options,
#                 into OUTDIR/baseline/run-K/ (interleaved, so that a
#                 drift of the host's load falls on both sides); then
#                 compare of every baseline boot against every run
#   --check-args  check the arguments (run-qemu.sh's too) and say what
#                 would be booted, then stop: nothing installed or booted
#   run-qemu.sh options: as ./run-qemu.sh --help lists them, but --log and
#                 --json, which this script sets. Without --accel, --accel
#                 kvm: a CI job timing TLB shootdowns must not quietly fall
#                 back to TCG (give --accel tcg or auto to allow it)
#
# Artifacts in OUTDIR:
#   summary.txt     status, the accelerator and CPU model, the verdict line,
#                   the artifacts (also printed at the end of stdout, and
#                   appended to $GITHUB_STEP_SUMMARY where that is set)
#   console.log     the whole serial console (streamed to stdout as it runs)
#   run-qemu.txt    the launcher's own lines (accel choice, verdict)
#   records.jsonl   the @json records, one a line
#   check.txt       tools/shootdown.py check: the log against the contract
#   junit.xml       tools/shootdown.py junit
#   results.tap     tools/shootdown.py tap (TAP version 13)
#   findings.txt    tools/shootdown.py answer (findings.md, findings.json)
#   plots/          tools/shootdown.py plot: PNG, SVG, index.html
#   compare.txt     with --baseline: tools/shootdown.py compare (compare.json)
#   run-K/, baseline/run-K/  with --runs: each boot's artifacts, as above
#
# Exit status, run-qemu.sh's (tools/exitcodes.py):
#   0   passed (and no significant slowdown against the baseline)
#   1   a check failed: the guest's, checklog's, or a significant slowdown
#   77  every check skipped
#   2   environment or usage problem: a missing tool, KVM asked for (the
#       default) but unusable, a build that failed, an artifact that
#       could not be made, a bad --baseline
#   3   aborted (the guest faulted or stopped running, QEMU died)
#   124 timed out (run-qemu.sh --timeout)
#   130 interrupted
set -u

E_PASS=0 E_FAIL=1 E_USAGE=2 E_ABORT=3 E_SKIP=77 E_TIMEOUT=124 E_INTR=130
root=$(cd "$(dirname "$0")/.." && pwd)
prog=ci-run

die_usage() {
	echo "$prog: $*" >&2
	echo "usage: tools/ci-run.sh [--install-deps] [--check-args] [--runs N] [--baseline DIR |" \
		"--baseline-kernel ELF --baseline-args WORDS] OUTDIR [run-qemu.sh options] [-- kernel args]" >&2
	exit $E_USAGE
}

meaning() { # STATUS: its words
	case $1 in
	"$E_PASS") echo "passed" ;;
	"$E_FAIL") echo "a check failed" ;;
	"$E_SKIP") echo "every check skipped" ;;
	"$E_USAGE") echo "environment or usage problem" ;;
	"$E_ABORT") echo "aborted" ;;
	"$E_TIMEOUT") echo "timed out" ;;
	"$E_INTR") echo "interrupted" ;;
	*) echo "exit $1" ;;
	esac
}

# summary.txt on GitHub's job page too, where the runner names the file,
# and the JUnit's failed checks under it (the first 50), each with its why.
step_summary() {
	[ -n "${GITHUB_STEP_SUMMARY:-}" ] || return 0
	{
		echo '```'
		cat "$out/summary.txt"
		echo '```'
		[ ! -f "$out/junit.xml" ] || python3 - "$out/junit.xml" <<'EOF'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
failed = [(s.get("name"), c.get("name"), f.get("message") or "")
          for s in root.iter("testsuite") for c in s.iter("testcase")
          for f in c.findall("failure")]
print(f"\n**{root.get('tests')} checks, {len(failed)} failed, {root.get('skipped')} "
      f"skipped** (junit.xml)\n")
for suite, name, why in failed[:50]:
    print(f"- FAIL {suite}: `{name}`: {why}".replace("\n", " "))
if len(failed) > 50:
    print(f"- ... and {len(failed) - 50} more (junit.xml)")
EOF
	} >>"$GITHUB_STEP_SUMMARY" 2>/dev/null
}

# --- arguments: ours out, the rest to run-qemu.sh as they are --------------
baseline=
install=0
check_args=0
runs=
base_kernel=
base_args=
base_args_given=0
outdir=
opts=()  # run-qemu.sh's options
kargs=() # the kernel arguments, after `--`
seen_dd=0
accel_given=0
value() { # OPTION ARGC: the option needs a value
	[ "$2" -gt 0 ] || die_usage "$1 needs a value"
}
while [ $# -gt 0 ]; do
	a=$1
	shift
	if [ $seen_dd = 1 ]; then
		kargs+=("$a")
		continue
	fi
	case "$a" in
	--) seen_dd=1 ;;
	-h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	--baseline) value "$a" $#; baseline=$1; shift ;;
	--baseline=*) baseline=${a#--baseline=} ;;
	--runs) value "$a" $#; runs=$1; shift ;;
	--runs=*) runs=${a#--runs=} ;;
	--baseline-kernel) value "$a" $#; base_kernel=$1; shift ;;
	--baseline-kernel=*) base_kernel=${a#--baseline-kernel=} ;;
	--baseline-args) value "$a" $#; base_args=$1; base_args_given=1; shift ;;
	--baseline-args=*) base_args=${a#--baseline-args=}; base_args_given=1 ;;
	--install-deps) install=1 ;;
	--check-args) check_args=1 ;;
	--log | --json | --log=* | --json=*)
		die_usage "$a: ci-run.sh writes the console and records into OUTDIR itself" ;;
	--dry-run | --probe)
		die_usage "$a: nothing to leave artifacts of; run ./run-qemu.sh $a" ;;
	--accel | --accel=*) accel_given=1; opts+=("$a") ;;
	*)
		if [ -z "$outdir" ] && [ ${#opts[@]} = 0 ]; then
			case "$a" in -*) die_usage "OUTDIR first (got option '$a')" ;; esac
			outdir=$a
		else
			opts+=("$a")
		fi ;;
	esac
done
[ -n "$outdir" ] || die_usage "no OUTDIR"
[ $accel_given = 1 ] || opts=(--accel kvm "${opts[@]}")
if [ -n "$runs" ]; then
	case "$runs" in
	*[!0-9]*) die_usage "--runs: '$runs' is not a number of boots from 1 to 100" ;;
	esac
	[ "$runs" -ge 1 ] && [ "$runs" -le 100 ] ||
		die_usage "--runs: '$runs' is not a number of boots from 1 to 100"
fi
boot_base=0
if [ -n "$base_kernel" ] || [ $base_args_given = 1 ]; then
	[ -n "$runs" ] || die_usage "--baseline-kernel/--baseline-args boot the baseline beside each run: give --runs N (5 or more a side under TCG)"
	[ -z "$baseline" ] || die_usage "--baseline DIR compares with earlier runs, --baseline-kernel/--baseline-args boot the baseline here: one or the other"
	[ -z "$base_kernel" ] || [ -f "$base_kernel" ] || die_usage "--baseline-kernel $base_kernel: no such file"
	boot_base=1
fi
# The baseline's boots: the run's options, its kernel or --baseline-kernel,
# its kernel arguments or --baseline-args (split on blanks).
base_opts=("${opts[@]}")
[ -z "$base_kernel" ] || base_opts+=(--kernel "$(cd "$(dirname "$base_kernel")" && pwd)/$(basename "$base_kernel")")
base_kargs=("${kargs[@]}")
if [ $base_args_given = 1 ]; then
	read -r -a base_kargs <<<"$base_args"
fi
pass=("${opts[@]}" -- "${kargs[@]}")

if [ $check_args = 1 ]; then
	command -v python3 >/dev/null || { echo "$prog: python3 not found: apt-get install python3" >&2; exit $E_USAGE; }
	# run-qemu.sh's own parser: a bad option is its usage error (exit 2).
	python3 "$root/tools/repeat_runs.py" --check "${pass[@]}" || exit $E_USAGE
	[ $boot_base = 0 ] || python3 "$root/tools/repeat_runs.py" --check "${base_opts[@]}" -- "${base_kargs[@]}" ||
		exit $E_USAGE
	echo "$prog: arguments checked: would $([ $install = 1 ] && echo 'install the dependencies, then ')boot ${runs:-1} run(s) into $outdir: run-qemu.sh ${pass[*]}"
	[ $boot_base = 0 ] || echo "$prog: each after a baseline boot into $outdir/baseline: run-qemu.sh ${base_opts[*]} -- ${base_kargs[*]}"
	[ -z "$baseline" ] || echo "$prog: then compare with the consoles of $baseline"
	exit $E_PASS
fi

if [ $install = 1 ]; then
	if [ "$(id -u)" = 0 ]; then
		"$root/tools/install-deps.sh" --quiet --job
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
		sudo -n "$root/tools/install-deps.sh" --quiet --job
	else
		echo "$prog: --install-deps: not root and no passwordless sudo: run tools/install-deps.sh as root" >&2
		false
	fi || { echo "$prog: installing the dependencies failed (above)" >&2; exit $E_USAGE; }
fi
command -v python3 >/dev/null || { echo "$prog: python3 not found: apt-get install python3" >&2; exit $E_USAGE; }
sd() { python3 "$root/tools/shootdown.py" "$@"; }

# The baseline's consoles: DIR/console.log, and DIR/*/console.log.
base_logs=()
if [ -n "$baseline" ]; then
	[ -d "$baseline" ] || die_usage "--baseline $baseline: not a directory"
	[ -f "$baseline/console.log" ] && base_logs+=("$baseline/console.log")
	for f in "$baseline"/*/console.log; do
		[ -f "$f" ] && base_logs+=("$f")
	done
	[ ${#base_logs[@]} -gt 0 ] ||
		die_usage "--baseline $baseline: no console.log in it or in a directory under it (an earlier ci-run.sh OUTDIR)"
fi

# --- --runs N: each boot a ci-run.sh of its own, then what spans them --------
worst() { # STATUS...: the worst, in the order --help gives
	local s w
	for w in $E_INTR $E_USAGE $E_ABORT $E_TIMEOUT $E_FAIL $E_SKIP $E_PASS; do
		for s in "$@"; do
			[ "$s" = "$w" ] && { echo "$w"; return; }
		done
	done
	echo $E_USAGE # a status none of ours: as an environment problem
}

boot_one() { # DIR ARGS...: one boot's artifacts in DIR; its status in $one
	GITHUB_STEP_SUMMARY='' "$root/tools/ci-run.sh" "$@"
	one=$?
}

# The runs' junit.xml files as one: a testsuite a boot, named after its
# directory (a CI's report then shows run-1, run-2, ...).
merge_junit() { # OUT FILE...
	python3 - "$@" <<'EOF'
import os, sys
import xml.etree.ElementTree as ET
root = ET.Element("testsuites")
totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
for path in sys.argv[2:]:
    for suite in ET.parse(path).getroot().iter("testsuite"):
        suite.set("name", os.path.basename(os.path.dirname(path)))
        for k in totals:
            totals[k] += int(suite.get(k, "0"))
        root.append(suite)
for k, v in totals.items():
    root.set(k, str(v))
ET.indent(root)
with open(sys.argv[1], "w", encoding="utf-8") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n")
EOF
}

repeat_runs() {
	local k st=() bst=() logs=() notes=() status
	for k in $(seq 1 "$runs"); do
		if [ $boot_base = 1 ]; then
			echo "$prog: baseline boot $k of $runs: $out/baseline/run-$k" >&2
			boot_one "$out/baseline/run-$k" "${base_opts[@]}" -- "${base_kargs[@]}"
			bst+=("$one")
			[ "$one" = $E_USAGE ] || [ "$one" = $E_INTR ] && break
		fi
		echo "$prog: run $k of $runs: $out/run-$k" >&2
		boot_one "$out/run-$k" "${pass[@]}"
		st+=("$one")
		[ "$one" = $E_USAGE ] || [ "$one" = $E_INTR ] && break
	done
	local junits=()
	for k in $(seq 1 ${#st[@]}); do
		[ -s "$out/run-$k/console.log" ] && logs+=("$out/run-$k/console.log")
		[ -s "$out/run-$k/junit.xml" ] && junits+=("$out/run-$k/junit.xml")
	done
	status=$(worst "${st[@]}")
	# A baseline that did not pass is no measure of the runs: said, and
	# an environment problem where the runs themselves passed.
	local s bad=0
	for s in "${bst[@]}"; do
		[ "$s" = $E_PASS ] || [ "$s" = $E_SKIP ] || bad=1
	done
	if [ $bad = 1 ]; then
		notes+=("baseline: not every boot passed (exit ${bst[*]}: baseline/run-K/summary.txt)")
		[ "$status" = $E_PASS ] && status=$E_USAGE
	fi
	if [ ${#logs[@]} -gt 0 ]; then
		[ ${#junits[@]} = 0 ] || merge_junit "$out/junit.xml" "${junits[@]}"
		if sd answer "${logs[@]}" >"$out/findings.txt" 2>&1; then
			sd answer "${logs[@]}" --markdown >"$out/findings.md" 2>/dev/null
			sd answer "${logs[@]}" --json >"$out/findings.json" 2>/dev/null
			notes+=("findings: answer over ${#logs[@]} runs (findings.txt)")
		else
			notes+=("findings: answer could not pool the runs (findings.txt)")
		fi
	fi
	for k in $(seq 1 ${#bst[@]}); do
		[ -s "$out/baseline/run-$k/console.log" ] && base_logs+=("$out/baseline/run-$k/console.log")
	done
	if [ ${#base_logs[@]} -gt 0 ] && [ ${#logs[@]} -gt 0 ]; then
		sd compare --json "$out/compare.json" "${base_logs[@]}" -- "${logs[@]}" >"$out/compare.txt" 2>&1
		case $? in
		0) notes+=("baseline: ${#base_logs[@]} against ${#logs[@]} runs: $(tail -1 "$out/compare.txt")") ;;
		1)
			notes+=("baseline: significantly slower: ${#base_logs[@]} against ${#logs[@]} runs: $(tail -1 "$out/compare.txt")")
			[ "$status" = $E_PASS ] && status=$E_FAIL ;;
		*)
			notes+=("baseline: compare could not compare (compare.txt): $(tail -1 "$out/compare.txt")")
			[ "$status" = $E_PASS ] && status=$E_USAGE ;;
		esac
	elif [ $boot_base = 1 ] || [ -n "$baseline" ]; then
		notes+=("baseline: not compared: no finished console on one side")
		[ "$status" = $E_PASS ] && status=$E_USAGE
	fi
	{
		echo "shootdown ci-run: exit $status ($(meaning "$status"))"
		echo "runs:        ${#st[@]} of $runs booted: exit ${st[*]}"
		[ $boot_base = 0 ] || echo "baseline:    ${#bst[@]} boots: exit ${bst[*]}: run-qemu.sh ${base_opts[*]} -- ${base_kargs[*]}"
		grep -E '^(accel|cpu model|guest cpu|hypervisor|cpus|boot|cmdline|version): ' "$out/run-1/summary.txt" 2>/dev/null
		for k in $(seq 1 ${#st[@]}); do
			echo "run-$k:       $(sed -n 's/^run-qemu: *//p' "$out/run-$k/summary.txt" 2>/dev/null)"
		done
		for n in "${notes[@]}"; do echo "note:        $n"; done
		echo "artifacts in $out:"
		(cd "$out" && for f in junit.xml findings.txt findings.md findings.json compare.txt compare.json; do
			[ -e "$f" ] && printf '  %-14s %s bytes\n' "$f" "$(stat -c %s "$f")"
		done
		printf '  %-14s %s\n' "run-K/" "each run's artifacts (run-1 ... run-${#st[@]})"
		[ $boot_base = 0 ] || printf '  %-14s %s\n' "baseline/" "the baseline's boots (run-1 ... run-${#bst[@]})")
	} >"$out/summary.txt"
	echo
	cat "$out/summary.txt"
	step_summary
	return "$status"
}

mkdir -p "$outdir" || { echo "$prog: cannot make $outdir" >&2; exit $E_USAGE; }
out=$(cd "$outdir" && pwd)
if [ -n "$baseline" ] && [ "$(cd "$baseline" && pwd)" = "$out" ]; then
	die_usage "--baseline $baseline is OUTDIR: this run would replace what it compares with"
fi
if [ -n "$runs" ]; then
	if [ -n "$baseline" ]; then
		case "$(cd "$baseline" && pwd)/" in "$out"/*)
			die_usage "--baseline $baseline is inside OUTDIR: --runs replaces what is there" ;;
		esac
	fi
	rm -rf "$out"/run-[0-9]* "$out/baseline" "$out"/{summary.txt,junit.xml,findings.txt} \
		"$out"/{findings.md,findings.json,compare.txt,compare.json}
	repeat_runs
	exit $?
fi
rm -rf "$out/plots" "$out"/{summary.txt,plot.txt,console.log,run-qemu.txt,records.jsonl,check.txt} \
	"$out"/{junit.xml,results.tap,findings.txt,findings.md,findings.json,compare.txt,compare.json}

# --- the run ------------------------------------------------------------------
# The console to stdout as it comes (the CI log shows it), the launcher's
# lines to stderr and run-qemu.txt.
{ "$root/run-qemu.sh" --log "$out/console.log" --json "$out/records.jsonl" "${pass[@]}" \
	2>&1 1>&3 3>&- | tee "$out/run-qemu.txt" >&2; } 3>&1
rc=${PIPESTATUS[0]}
touch "$out/run-qemu.txt"

status=$rc
# The launcher's last line says how the run ended ("...: exit N"), or,
# when it stopped before booting, why.
why=$(grep -E '^run-qemu: .*: exit [0-9]+$' "$out/run-qemu.txt" | tail -1 |
	sed 's/^run-qemu: //; s/: exit [0-9]*$//')
[ -n "$why" ] || why=$(grep -v '^$' "$out/run-qemu.txt" | tail -1 | sed 's/^run-qemu: //')
notes=()

# --- the artifacts, from the console ----------------------------------------------
artifact() { # NAME CMD...: runs CMD; a failure is noted (and fails a passing run)
	local name=$1
	shift
	if ! "$@"; then
		notes+=("$name could not be made (see above)")
		[ $status = $E_PASS ] && status=$E_USAGE
		return 1
	fi
}

if [ -s "$out/console.log" ]; then
	sd check "$out/console.log" >"$out/check.txt" 2>&1
	crc=$?
	if [ $crc = 0 ]; then
		echo "console.log: complete and consistent: no problems (tools/shootdown.py check)" >>"$out/check.txt"
	elif [ $crc = 1 ]; then
		notes+=("check: the console breaks the output contract (check.txt)")
		[ $status = $E_PASS ] && status=$E_FAIL
	elif [ $crc != 0 ]; then
		notes+=("check: could not read the console (check.txt)")
	fi
	artifact junit.xml sd junit "$out/console.log" -o "$out/junit.xml"
	artifact results.tap sd tap "$out/console.log" -o "$out/results.tap"
	if grep -q '"type":"env"' "$out/records.jsonl" 2>/dev/null; then
		artifact findings.txt sd answer "$out/console.log" >"$out/findings.txt"
		sd answer "$out/console.log" --markdown >"$out/findings.md" 2>/dev/null
		sd answer "$out/console.log" --json >"$out/findings.json" 2>/dev/null
		if artifact plots sd plot "$out/console.log" -o "$out/plots" >"$out/plot.txt" 2>&1; then
			mv "$out/plot.txt" "$out/plots/plot.txt"
		else
			cat "$out/plot.txt" >&2
			rm -f "$out/plot.txt"
		fi
	else
		notes+=("no env record: no findings or plots (the run ended before its first record)")
	fi
else
	notes+=("no console: QEMU never ran the guest (the launcher's lines are in run-qemu.txt)")
fi

if [ ${#base_logs[@]} -gt 0 ] && [ -s "$out/console.log" ]; then
	sd compare --json "$out/compare.json" "${base_logs[@]}" -- "$out/console.log" >"$out/compare.txt" 2>&1
	case $? in
	0) notes+=("baseline: $(tail -1 "$out/compare.txt")") ;;
	1)
		notes+=("baseline: significantly slower: $(tail -1 "$out/compare.txt")")
		[ $status = $E_PASS ] && status=$E_FAIL ;;
	*)
		notes+=("baseline: compare could not compare (compare.txt): $(tail -1 "$out/compare.txt")")
		[ $status = $E_PASS ] && status=$E_USAGE ;;
	esac
fi

# --- the summary: where a reviewer looks --------------------------------------------
accel_line=$(grep -E '^run-qemu: accel ' "$out/run-qemu.txt" | tail -1)
accel=$(printf '%s\n' "$accel_line" | sed -n 's/^run-qemu: accel \([^,]*\), cpu \(.*\): .*/\1/p')
cpu=$(printf '%s\n' "$accel_line" | sed -n 's/^run-qemu: accel \([^,]*\), cpu \([^:]*\): .*/\2/p')
accel_why=$(printf '%s\n' "$accel_line" | sed -n 's/^run-qemu: accel [^:]*: //p')
env=$(python3 - "$out/records.jsonl" <<'EOF' 2>/dev/null
import json, sys
try:
    for line in open(sys.argv[1]):
        r = json.loads(line)
        if r.get("type") == "env":
            c = r.get("cpu") or {}
            print(f"guest cpu:   {c.get('brand', '?')} ({c.get('vendor', '?')} family "
                  f"{c.get('family', '?')} model {c.get('model', '?')} stepping {c.get('stepping', '?')})")
            print(f"hypervisor:  {r.get('hypervisor')}")
            print(f"cpus:        {r.get('cpus_online')} online of {r.get('cpus_madt')}")
            print(f"boot:        {r.get('boot')}")
            print(f"cmdline:     {r.get('cmdline')}")
            print(f"version:     {r.get('version')}")
            break
except (OSError, ValueError):
    pass
EOF
)
{
	echo "shootdown ci-run: exit $status ($(meaning "$status"))"
	echo "accel:       ${accel:-none (the launcher stopped before choosing)}${accel_why:+ ($accel_why)}"
	echo "cpu model:   ${cpu:-none}"
	[ -n "$env" ] && printf '%s\n' "$env"
	echo "run-qemu:    exit $rc: ${why:-no verdict line}"
	for n in "${notes[@]}"; do echo "note:        $n"; done
	echo "artifacts in $out:"
	(cd "$out" && for f in console.log run-qemu.txt records.jsonl check.txt junit.xml results.tap \
		findings.txt findings.md findings.json compare.txt compare.json plots; do
		if [ -d "$f" ]; then
			printf '  %-14s %s bytes, %s files\n' "$f/" "$(du -sb "$f" | cut -f1)" "$(find "$f" -type f | wc -l)"
		elif [ -e "$f" ]; then
			printf '  %-14s %s bytes\n' "$f" "$(stat -c %s "$f")"
		fi
	done)
} >"$out/summary.txt"
echo
cat "$out/summary.txt"
step_summary
exit $status
