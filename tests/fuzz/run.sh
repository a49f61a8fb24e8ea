#!/bin/sh
# Runs the libFuzzer targets that tests/fuzz/fuzz.mk built (make fuzz,
# make fuzz-smoke); see there.
#
#   run.sh --probe CC              can CC build a libFuzzer target? If not,
#                                  print why (a SKIP line) and exit 1
#   run.sh --fuzz SECONDS T...     each target T for SECONDS, growing its
#                                  corpus in build/fuzz/corpus/T from the
#                                  seeds in tests/fuzz/corpus/T
#   run.sh --smoke SECONDS T...    the same from the seeds alone (a fresh
#                                  corpus each time), for make check
#
# FUZZ_RUNS=N (environment) also stops each target after N executions,
# whichever comes first.
#
# One line per target: executions, libFuzzer's final coverage (cov: edges,
# ft: features) and the executions per second. A crash, a sanitizer
# report, a broken property or a timeout stops that target with its log
# and the saved input named, and the exit status is 1 once all have run.
set -eu

OUT=build/fuzz
SEEDS=tests/fuzz/corpus

if [ "${1-}" = --probe ]; then
	cc=$2
	mkdir -p "$OUT"
	if ! command -v "$cc" >/dev/null 2>&1; then
		echo "fuzz: SKIP: $cc not found (Debian packages clang" \
			"libclang-rt-dev: run tools/install-deps.sh --optional as root)"
		exit 1
	fi
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)\n{ return d && n ? 0 : 0; }\n' >"$OUT/probe.c"
	if ! "$cc" -fsanitize=fuzzer,address,undefined "$OUT/probe.c" \
		-o "$OUT/probe" >"$OUT/probe.log" 2>&1; then
		echo "fuzz: SKIP: $cc cannot link -fsanitize=fuzzer,address,undefined" \
			"($(head -n 1 "$OUT/probe.log")); the libFuzzer runtime" \
			"is in Debian's libclang-rt-dev (libclang-rt-14-dev): run" \
			"tools/install-deps.sh as root"
		exit 1
	fi
	exit 0
fi

mode=$1
seconds=$2
shift 2

failed=""
for t in "$@"; do
	bin=$OUT/fuzz_$t
	log=$OUT/$t.log
	if [ "$mode" = --smoke ]; then
		# Apart from make fuzz's corpus and log: both may run at once.
		corpus=$OUT/smoke/$t
		log=$OUT/smoke/$t.log
		rm -rf "$corpus"
	else
		corpus=$OUT/corpus/$t
	fi
	mkdir -p "$corpus" "$OUT/artifacts"
	# Per-target options (a larger -max_len for the ACPI tables) sit
	# next to the seeds, in libFuzzer's own .options format.
	opts=""
	if [ -f "tests/fuzz/$t.options" ]; then
		opts=$(sed -n 's/^\([a-z_]*\) *= *\([0-9]*\)$/-\1=\2/p' \
			"tests/fuzz/$t.options")
	fi
	if [ -n "${FUZZ_RUNS-}" ]; then
		opts="$opts -runs=$FUZZ_RUNS"
	fi
	start=$(date +%s)
	# shellcheck disable=SC2086 # opts is a list of words
	if "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$OUT/artifacts/$t-" \
		$opts "$corpus" "$SEEDS/$t" >"$log" 2>&1; then
		status=ok
	else
		status=FAILED
		failed="$failed $t"
	fi
	took=$(($(date +%s) - start))
	# The last status line ("#N DONE cov: C ft: F ...") and the totals.
	last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	printf 'fuzz: %-10s %s: %s runs in %ss (%s/s), cov: %s ft: %s\n' \
		"$t" "$status" "${runs:-?}" "$took" "${eps:-?}" \
		"${cov:-?}" "${ft:-?}"
	if [ "$status" = FAILED ]; then
		grep -E 'ERROR|check failed|runtime error|Test unit written' \
			"$log" | head -n 5 | sed 's/^/    /'
		echo "    whole log: $log"
	fi
done
if [ -n "$failed" ]; then
	echo "fuzz: FAILED:$failed"
	exit 1
fi
echo "fuzz: all $# targets ran without a finding"
