#!/usr/bin/env bash
# One command for a CI job: boot the harness under QEMU (KVM unless asked
# otherwise), and leave what a reviewer needs as artifacts in OUTDIR.
#
# usage: tools/ci-run.sh [--install-deps] [--baseline DIR] OUTDIR [run-qemu.sh options]
#                        [-- kernel args]
#
#   --install-deps  first install what is missing (tools/install-deps.sh), as
#                 root or through `sudo -n` (a CI runner's passwordless sudo)
#   OUTDIR        made if missing; what an earlier run left there is replaced
#   --baseline DIR  an earlier run's OUTDIR (or a directory holding several
#                 of them, one a subdirectory): `tools/shootdown.py compare`
#                 of its console(s) against this run's, the run as the unit;
#                 a significant slowdown fails the job (exit 1). With one
#                 run a side compare cannot tell, and says so (exit 0)
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
	echo "usage: tools/ci-run.sh [--install-deps] [--baseline DIR] OUTDIR [run-qemu.sh options] [-- kernel args]" >&2
	exit $E_USAGE
}

# --- arguments: ours out, the rest to run-qemu.sh as they are --------------
baseline=
install=0
outdir=
pass=()
accel_given=0
seen_dd=0
while [ $# -gt 0 ]; do
	a=$1
	shift
	if [ $seen_dd = 1 ]; then
		pass+=("$a")
		continue
	fi
	case "$a" in
	--) seen_dd=1; pass+=("$a") ;;
	-h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	--baseline)
		[ $# -gt 0 ] || die_usage "--baseline needs a directory"
		baseline=$1; shift ;;
	--baseline=*) baseline=${a#--baseline=} ;;
	--install-deps) install=1 ;;
	--log | --json | --log=* | --json=*)
		die_usage "$a: ci-run.sh writes the console and records into OUTDIR itself" ;;
	--dry-run | --probe)
		die_usage "$a: nothing to leave artifacts of; run ./run-qemu.sh $a" ;;
	--accel | --accel=*) accel_given=1; pass+=("$a") ;;
	*)
		if [ -z "$outdir" ] && [ ${#pass[@]} = 0 ]; then
			case "$a" in -*) die_usage "OUTDIR first (got option '$a')" ;; esac
			outdir=$a
		else
			pass+=("$a")
		fi ;;
	esac
done
[ -n "$outdir" ] || die_usage "no OUTDIR"
[ $accel_given = 1 ] || pass=(--accel kvm "${pass[@]}")

if [ $install = 1 ]; then
	if [ "$(id -u)" = 0 ]; then
		"$root/tools/install-deps.sh" --quiet
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
		sudo -n "$root/tools/install-deps.sh" --quiet
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

mkdir -p "$outdir" || { echo "$prog: cannot make $outdir" >&2; exit $E_USAGE; }
out=$(cd "$outdir" && pwd)
if [ -n "$baseline" ] && [ "$(cd "$baseline" && pwd)" = "$out" ]; then
	die_usage "--baseline $baseline is OUTDIR: this run would replace what it compares with"
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
case $status in
$E_PASS) meaning="passed" ;;
$E_FAIL) meaning="a check failed" ;;
$E_SKIP) meaning="every check skipped" ;;
$E_USAGE) meaning="environment or usage problem" ;;
$E_ABORT) meaning="aborted" ;;
$E_TIMEOUT) meaning="timed out" ;;
$E_INTR) meaning="interrupted" ;;
*) meaning="exit $status" ;;
esac
{
	echo "shootdown ci-run: exit $status ($meaning)"
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
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
	{ echo '```'; cat "$out/summary.txt"; echo '```'; } >>"$GITHUB_STEP_SUMMARY" 2>/dev/null
fi
exit $status
