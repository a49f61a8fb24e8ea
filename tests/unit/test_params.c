// SPDX-License-Identifier: MIT
/*
 * Host tests of bench/params.c and bench/options.c (the experiments'
 * parameters, through the real command line: kernel/config.c's parse of
 * both tables, so that the diagnostics are checked as a user sees them)
 * and of bench/rng.h. lib/cmdline's list kinds have their own tests in
 * test_cmdline.c; here, what the experiments' keys make of them.
 */
#include <stdio.h>
#include "unit.h"
#include "bench/options.h"
#include "bench/params.h"
#include "bench/rng.h"

#define MAX_DIAGS 40

static struct {
	size_t n;
	char msg[MAX_DIAGS][PARAM_DIAG_LEN];
} got;

static void collect(void *ctx, const char *msg)
{
	assert_ptr_equal(ctx, &got);
	assert_printable(msg, PARAM_DIAG_LEN);
	assert_true(got.n < MAX_DIAGS);
	strcpy(got.msg[got.n++], msg);
}

static const struct diag_sink sink = {collect, &got};

static const struct diag_sink *reset(void)
{
	memset(&got, 0, sizeof(got));
	return &sink;
}

/* l holds exactly the numbers that follow. */
#define expect_list(l, ...) assert_u32_items((l)->n, (l)->v, __VA_ARGS__)

/* SplitMix64's published first outputs (seed 0, and Java's 1234567). */
static void test_rng_known_values(void **state)
{
	struct rng r;

	(void)state;
	rng_seed(&r, 0);
	assert_true(rng_next(&r) == 0xe220a8397b1dcdafull);
	assert_true(rng_next(&r) == 0x6e789e6aa1b965f4ull);
	assert_true(rng_next(&r) == 0x06c45d188009454full);
	rng_seed(&r, 1234567);
	assert_true(rng_next(&r) == 6457827717110365317ull);
	assert_true(rng_next(&r) == 0x2c73f08458540fa5ull);
}

/* Sequences from an independent implementation (Python, big integers). */
static void test_rng_below_sequence(void **state)
{
	static const uint64_t ten[] = {7, 1, 2, 3, 0, 8, 2, 8, 3, 6};
	static const uint64_t big[] = {
		3595544800446187243ull, 8308050873407804673ull,
		2300599727732774152ull, 1238314238945538992ull};
	struct rng r;

	(void)state;
	rng_seed(&r, 42);
	for (size_t i = 0; i < ARRAY_SIZE(ten); i++)
		assert_int_equal(rng_below(&r, 10), ten[i]);
	/* n = 2^63 + 1 rejects about half of the draws. */
	rng_seed(&r, 7);
	for (size_t i = 0; i < ARRAY_SIZE(big); i++)
		assert_true(rng_below(&r, (1ull << 63) + 1) == big[i]);
}

static void test_rng_below_bounds(void **state)
{
	static const uint64_t ns[] = {
		1, 2, 3, 7, 1000, (1ull << 63) + 1, UINT64_MAX - 1, UINT64_MAX};
	unsigned count[6] = {0};
	struct rng r;

	(void)state;
	rng_seed(&r, 0);
	assert_int_equal(rng_below(&r, 0), 0);
	for (size_t k = 0; k < ARRAY_SIZE(ns); k++) {
		for (int i = 0; i < 2000; i++)
			assert_true(rng_below(&r, ns[k]) < ns[k]);
	}
	for (int i = 0; i < 60000; i++)
		count[rng_below(&r, 6)]++;
	for (int i = 0; i < 6; i++) {
		assert_true(count[i] > 9500); /* 10000 expected each */
		assert_true(count[i] < 10500);
	}
}

static void test_rng_shuffle(void **state)
{
	static const uint32_t want[] = {9, 0, 1, 4, 8, 2, 3, 7, 6, 5};
	uint32_t a[10], b[10], seen[6] = {0};
	struct rng r;

	(void)state;
	rng_seed(&r, 1);
	for (uint32_t i = 0; i < 10; i++)
		a[i] = i;
	rng_shuffle(&r, a, 10);
	assert_memory_equal(a, want, sizeof(a));
	rng_shuffle(&r, a, 0); /* nothing to do, nothing touched */
	rng_shuffle(&r, a, 1);
	assert_memory_equal(a, want, sizeof(a));
	/* Every order of three, about equally often. */
	for (int i = 0; i < 60000; i++) {
		b[0] = 0, b[1] = 1, b[2] = 2;
		rng_shuffle(&r, b, 3);
		assert_int_equal(b[0] + b[1] + b[2], 3);
		assert_true(b[0] != b[1] && b[1] != b[2] && b[0] != b[2]);
		seen[b[0] * 2 + (b[1] > b[2])]++;
	}
	for (int i = 0; i < 6; i++) {
		assert_true(seen[i] > 9500);
		assert_true(seen[i] < 10500);
	}
}

static struct config cfg;
static struct cmdline_diags cd;

/*
 * Both tables' defaults, then the line, in one parse, as the kernel does;
 * every diagnostic is collected in order.
 */
static size_t from_line(const char *line, struct bench_params *p)
{
	const struct cmdline_table t = bench_options(p);
	size_t n;

	memset(&cfg, 0x5a, sizeof(cfg));
	memset(p, 0x5a, sizeof(*p));
	reset();
	n = config_parse(line, &cfg, &t, 1, &cd);
	assert_int_equal(n, cd.count + cd.folded + cd.dropped);
	for (size_t i = 0; i < cd.count; i++)
		collect(&got, cd.msg[i]);
	bench_options_from_kernel(p, &cfg);
	return n;
}

/* The first diagnostic is msg, and the only one. */
static void expect_one(const char *line, const char *msg)
{
	struct bench_params p;

	assert_int_equal(from_line(line, &p), 1);
	assert_string_equal(got.msg[0], msg);
}

/* How many collected diagnostics start with prefix. */
static size_t count_prefix(const char *prefix)
{
	size_t n = 0;

	for (size_t i = 0; i < got.n; i++)
		n += !strncmp(got.msg[i], prefix, strlen(prefix));
	return n;
}

/* The line gives exactly these diagnostics, in order. */
static void expect_diags(const char *line, struct bench_params *p, size_t n,
			 ...)
{
	va_list ap;

	assert_int_equal(from_line(line, p), n);
	assert_int_equal(got.n, n);
	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(got.msg[i], va_arg(ap, const char *));
	va_end(ap);
}

static void test_pages_good(void **state)
{
	struct bench_params p;

	(void)state;
	expect_diags("pages=1,2,8,32,33,64,512", &p, 0);
	expect_list(&p.pages, 7, 1, 2, 8, 32, 33, 64, 512);
	expect_diags("pages=512,1,0x10", &p, 0); /* order kept; hex too */
	expect_list(&p.pages, 3, 512, 1, 16);
	expect_diags("", &p, 0);
	expect_list(&p.pages, 7, 1, 2, 8, 32, 33, 64, 512);
	expect_diags("pages=7", &p, 0);
	expect_list(&p.pages, 1, 7);
}

/* The numbers the plan and refill take are the command line's default. */
static void test_pages_default_as_numbers(void **state)
{
	struct bench_params p;
	uint32_t v[PARAM_LIST_MAX], few[3];

	(void)state;
	expect_diags("", &p, 0);
	assert_int_equal(param_pages_default(v, PARAM_LIST_MAX), p.pages.n);
	for (uint32_t i = 0; i < p.pages.n; i++)
		assert_int_equal(v[i], p.pages.v[i]);
	/* never past max, and the count says how many there are */
	few[2] = 77;
	assert_int_equal(param_pages_default(few, 2), p.pages.n);
	assert_int_equal(few[1], p.pages.v[1]);
	assert_int_equal(few[2], 77);
}

#define PAGES_BAD "'pages=1,x,0,513,8,1,,9999999999999999999...'"

static void test_pages_bad(void **state)
{
	struct bench_params p;

	(void)state;
	expect_diags("pages=1,x,0,513,8,1,,999999999999999999999999999999,2",
		     &p, 6,
		     "cmdline: " PAGES_BAD ": item 'x': expected a number in "
		     "1..512: skipped",
		     "cmdline: " PAGES_BAD ": item '0': out of range 1..512: "
		     "skipped",
		     "cmdline: " PAGES_BAD ": item '513': out of range "
		     "1..512: skipped",
		     "cmdline: " PAGES_BAD ": item '1': repeated: skipped",
		     "cmdline: " PAGES_BAD ": empty item: skipped",
		     "cmdline: " PAGES_BAD ": item '999999999999999999999999"
		     "...': out of range 1..512: skipped");
	expect_list(&p.pages, 3, 1, 8, 2);
	/* No signs; nothing valid keeps the default, said so. */
	expect_diags("pages=-1,+2", &p, 3,
		     "cmdline: 'pages=-1,+2': item '-1': expected a number in "
		     "1..512: skipped",
		     "cmdline: 'pages=-1,+2': item '+2': expected a number in "
		     "1..512: skipped",
		     "cmdline: 'pages=-1,+2': no valid item: using default "
		     "'1,2,8,32,33,64,512'");
	expect_list(&p.pages, 7, 1, 2, 8, 32, 33, 64, 512);
	/* The value that applies is the later word's, not the default. */
	expect_diags("pages=, pages=3 pages=0", &p, 5,
		     "cmdline: 'pages=,': empty item: skipped",
		     "cmdline: 'pages=,': empty item: skipped",
		     "cmdline: 'pages=,': no valid item: using 'pages=3' "
		     "(word 2)",
		     "cmdline: 'pages=0': item '0': out of range 1..512: "
		     "skipped",
		     "cmdline: 'pages=0': no valid item: using 'pages=3' "
		     "(word 2)");
	expect_list(&p.pages, 1, 3);
}

static void test_pages_too_many(void **state)
{
	char line[512] = "pages=";
	struct bench_params p;

	(void)state;
	for (int i = 1; i <= 40; i++)
		sprintf(line + strlen(line), "%s%d", i > 1 ? "," : "", i);
	expect_diags(line, &p, 1,
		     "cmdline: 'pages=1,2,3,4,5,6,7,8,9,10,11,12,13,14,1...': "
		     "item '33': list full (32 items): skipped with the rest");
	assert_int_equal(p.pages.n, PARAM_LIST_MAX);
	for (uint32_t i = 0; i < PARAM_LIST_MAX; i++)
		assert_int_equal(p.pages.v[i], i + 1);
}

static void test_targets_parse(void **state)
{
	struct bench_params p;

	(void)state;
	expect_diags("targets=1,2,4,all", &p, 0);
	expect_list(&p.targets, 4, 1, 2, 4, PARAM_TARGETS_ALL);
	expect_diags("", &p, 0);
	expect_list(&p.targets, 1, PARAM_TARGETS_AUTO);
	expect_diags("targets=auto,100,all,65535", &p, 0);
	expect_list(&p.targets, 4, PARAM_TARGETS_AUTO, 100, PARAM_TARGETS_ALL,
		    65535);
	expect_diags("targets=ALL,65536,all,0,all", &p, 4,
		     "cmdline: 'targets=ALL,65536,all,0,all': item 'ALL': "
		     "expected a number in 1..65535 or all|auto: skipped",
		     "cmdline: 'targets=ALL,65536,all,0,all': item '65536': "
		     "out of range 1..65535: skipped",
		     "cmdline: 'targets=ALL,65536,all,0,all': item '0': out "
		     "of range 1..65535: skipped",
		     "cmdline: 'targets=ALL,65536,all,0,all': item 'all': "
		     "repeated: skipped");
	expect_list(&p.targets, 1, PARAM_TARGETS_ALL);
	expect_diags("targets=none", &p, 2,
		     "cmdline: 'targets=none': item 'none': expected a number "
		     "in 1..65535 or all|auto: skipped",
		     "cmdline: 'targets=none': no valid item: using default "
		     "'auto'");
	expect_list(&p.targets, 1, PARAM_TARGETS_AUTO);
}

static void test_targets_default(void **state)
{
	struct cmdline_list l;

	(void)state;
	params_default_targets(0, &l);
	assert_int_equal(l.n, 0);
	params_default_targets(1, &l);
	expect_list(&l, 1, 1);
	params_default_targets(3, &l);
	expect_list(&l, 3, 1, 2, 3);
	params_default_targets(4, &l);
	expect_list(&l, 3, 1, 2, 4);
	params_default_targets(191, &l);
	expect_list(&l, 9, 1, 2, 4, 8, 16, 32, 64, 128, 191);
	params_default_targets(65535, &l);
	assert_int_equal(l.n, 17);
	assert_int_equal(l.v[15], 32768);
	assert_int_equal(l.v[16], 65535);
	/* 33 powers would not fit: the largest count is still there. */
	params_default_targets(UINT32_MAX, &l);
	assert_int_equal(l.n, PARAM_LIST_MAX);
	assert_int_equal(l.v[30], 1u << 30);
	assert_int_equal(l.v[31], UINT32_MAX);
}

static size_t resolve(const char *s, uint32_t responders,
		      struct cmdline_list *out)
{
	struct bench_params p;
	char line[512];

	snprintf(line, sizeof(line), "targets=%s", s);
	assert_int_equal(from_line(line, &p), 0);
	memset(out, 0x5a, sizeof(*out));
	return params_resolve_targets(&p.targets, responders, out, reset());
}

static void test_targets_resolve(void **state)
{
	struct cmdline_list l, empty = {0};

	(void)state;
	assert_int_equal(resolve("auto", 7, &l), 0);
	expect_list(&l, 4, 1, 2, 4, 7);
	assert_int_equal(resolve("1,2,4,all", 3, &l), 1);
	expect_list(&l, 3, 1, 2, 3);
	assert_string_equal(got.msg[0], "cmdline: 'targets=1,2,4,all': item "
					"'4': more than the 3 responders: "
					"using 3");
	assert_int_equal(resolve("8,all,1", 1, &l), 1);
	expect_list(&l, 1, 1);
	assert_string_equal(got.msg[0], "cmdline: 'targets=8,all,1': item "
					"'8': more than the 1 responder: "
					"using 1");
	assert_int_equal(resolve("all,2,auto", 8, &l), 0);
	expect_list(&l, 4, 8, 2, 1, 4);
	assert_int_equal(resolve("5,auto", 16, &l), 0);
	expect_list(&l, 6, 5, 1, 2, 4, 8, 16);
	/* No responders: nothing to run, nothing to say. */
	assert_int_equal(resolve("1,2,all", 0, &l), 0);
	assert_int_equal(l.n, 0);
	/* An empty list (a zeroed struct) is auto. */
	assert_int_equal(params_resolve_targets(&empty, 5, &l, reset()), 0);
	expect_list(&l, 4, 1, 2, 4, 5);
}

static void test_targets_resolve_full(void **state)
{
	char line[512] = "";
	struct cmdline_list l;

	(void)state;
	for (int i = 1; i <= 31; i++)
		sprintf(line + strlen(line), "%d,", 1000 + i);
	strcat(line, "auto");
	assert_int_equal(resolve(line, 65535, &l), 1);
	assert_int_equal(l.n, PARAM_LIST_MAX);
	assert_int_equal(l.v[30], 1031);
	assert_int_equal(l.v[31], 1);
	assert_string_equal(got.msg[0], "cmdline: 'targets=1001,1002,1003,"
					"1004,1005,1006,10...': more than 32 "
					"responder counts: the rest skipped");
}

#define STRATEGIES_EXPECTED                                           \
	"expected all|ipi-page|ipi-range|ipi-full|ipi-linux|invlpgb|" \
	"invlpgb-linux"

static void test_names_good(void **state)
{
	struct bench_params p;

	(void)state;
	expect_diags("strategies=all", &p, 0);
	expect_list(&p.strategies, 6, 0, 1, 2, 3, 4, 5);
	expect_diags("strategies=invlpgb,ipi-page", &p, 0);
	expect_list(&p.strategies, 2, 4, 0);
	/* A name that begins as another one is its own. */
	expect_diags("strategies=invlpgb-linux,invlpgb", &p, 0);
	expect_list(&p.strategies, 2, 5, 4);
	/* all after a name: the name first, then the rest in table order. */
	expect_diags("strategies=ipi-full,all,all", &p, 0);
	expect_list(&p.strategies, 6, 2, 0, 1, 3, 4, 5);
	expect_diags("bench=none", &p, 0);
	assert_int_equal(p.bench.n, 0);
	expect_diags("bench=flushloop,primitives", &p, 0);
	expect_list(&p.bench, 2, 3, 0);
}

#define STRATEGIES_BAD "'strategies=ipi-fast,ipi-page,,ipi-page,I...'"

static void test_names_bad(void **state)
{
	struct bench_params p;

	(void)state;
	expect_diags("strategies=ipi-fast,ipi-page,,ipi-page,IPI-FULL", &p, 4,
		     "cmdline: " STRATEGIES_BAD
		     ": item 'ipi-fast': " STRATEGIES_EXPECTED ": skipped",
		     "cmdline: " STRATEGIES_BAD ": empty item: skipped",
		     "cmdline: " STRATEGIES_BAD ": item 'ipi-page': repeated: "
		     "skipped",
		     "cmdline: " STRATEGIES_BAD
		     ": item 'IPI-FULL': " STRATEGIES_EXPECTED ": skipped");
	expect_list(&p.strategies, 1, 0);
	/* Nothing valid: all, said so; none is bench='s alone. */
	expect_diags(
		"strategies=none", &p, 2,
		"cmdline: 'strategies=none': item 'none': " STRATEGIES_EXPECTED
		": skipped",
		"cmdline: 'strategies=none': no valid item: using default "
		"'all'");
	expect_list(&p.strategies, 6, 0, 1, 2, 3, 4, 5);
	expect_diags("bench=none,primitives", &p, 1,
		     "cmdline: 'bench=none,primitives': item 'none': mixed "
		     "with other names: skipped");
	expect_list(&p.bench, 1, 0);
	expect_diags("bench=shootdown,x", &p, 1,
		     "cmdline: 'bench=shootdown,x': item 'x': expected "
		     "all|none|primitives|shootdown|reclaim|flushloop: "
		     "skipped");
	expect_list(&p.bench, 1, 1);
}

static struct param_delay delay(const char *s, size_t ndiag)
{
	struct bench_params p;
	char line[128];

	snprintf(line, sizeof(line), "delay_handler=%s", s);
	assert_int_equal(from_line(line, &p), ndiag);
	assert_int_equal(got.n, ndiag);
	return p.delay;
}

static void test_delay(void **state)
{
	struct param_delay d;
	struct bench_params p;

	(void)state;
	d = delay("ipi-range:5000", 0);
	assert_true(d.on);
	assert_int_equal(d.strategy, 1);
	assert_int_equal(d.cycles, 5000);
	d = delay("invlpgb:0x10", 0);
	assert_true(d.on && d.strategy == 4 && d.cycles == 16);
	d = delay("ipi-page:1000000000", 0);
	assert_true(d.on && d.cycles == PARAM_DELAY_MAX);
	assert_false(delay("none", 0).on);
	assert_false(delay("ipi-range", 1).on);
	assert_string_equal(got.msg[0], "cmdline: 'delay_handler=ipi-range': "
					"expected none or STRATEGY:CYCLES: "
					"using default 'none'");
	assert_false(delay("ipi-fast:10", 1).on);
	assert_string_equal(got.msg[0],
			    "cmdline: 'delay_handler=ipi-fast:10': strategy "
			    "'ipi-fast': expected ipi-page|ipi-range|ipi-full|"
			    "ipi-linux|invlpgb|invlpgb-linux: using default "
			    "'none'");
	assert_false(delay("ipi-range:0", 1).on);
	assert_string_equal(got.msg[0],
			    "cmdline: 'delay_handler=ipi-range:0': cycles '0': "
			    "expected a number in 1..1000000000: using default "
			    "'none'");
	assert_false(delay("ipi-range:1000000001", 1).on);
	assert_false(delay("ipi-range:", 1).on);
	assert_false(delay("ipi-range:12x", 1).on);
	assert_false(delay(":12", 1).on);
	/* Rejected as a whole, as any word: an earlier one stays. */
	expect_diags("delay_handler=ipi-full:9 delay_handler=x", &p, 1,
		     "cmdline: 'delay_handler=x': expected none or "
		     "STRATEGY:CYCLES: using 'delay_handler=ipi-full:9' "
		     "(word 1)");
	assert_true(p.delay.on && p.delay.strategy == 2 && p.delay.cycles == 9);
}

static struct param_invlpgb invlpgb(const char *s, size_t ndiag)
{
	struct param_invlpgb v;

	memset(&v, 0x5a, sizeof(v));
	assert_int_equal(params_parse_invlpgb(s, &v, reset()), ndiag);
	return v;
}

static void test_invlpgb(void **state)
{
	struct param_invlpgb v;

	(void)state;
	v = invlpgb("auto", 0);
	assert_int_equal(v.mode, PARAM_INVLPGB_AUTO);
	assert_int_equal(v.bug, PARAM_BUG_NONE);
	v = invlpgb("", 0);
	assert_int_equal(v.mode, PARAM_INVLPGB_AUTO);
	assert_int_equal(invlpgb("off", 0).mode, PARAM_INVLPGB_OFF);
	assert_int_equal(invlpgb("force", 0).mode, PARAM_INVLPGB_FORCE);
	v = invlpgb("emulate,bug=count", 0);
	assert_int_equal(v.mode, PARAM_INVLPGB_EMULATE);
	assert_int_equal(v.bug, PARAM_BUG_COUNT);
	v = invlpgb("auto,bug=stride", 0);
	assert_int_equal(v.mode, PARAM_INVLPGB_AUTO);
	assert_int_equal(v.bug, PARAM_BUG_STRIDE);
	v = invlpgb("emulate,bug=no-tlbsync", 0);
	assert_int_equal(v.mode, PARAM_INVLPGB_EMULATE);
	assert_int_equal(v.bug, PARAM_BUG_NO_TLBSYNC);
	v = invlpgb("emulate,bug=no-global", 0);
	assert_int_equal(v.bug, PARAM_BUG_NO_GLOBAL);
	v = invlpgb("auto,bug=pcid", 0);
	assert_int_equal(v.bug, PARAM_BUG_PCID);
	v = invlpgb("emulate,bug=count,bug=none", 0);
	assert_int_equal(v.bug, PARAM_BUG_NONE);
	assert_string_equal(params_invlpgb_mode_name(PARAM_INVLPGB_EMULATE),
			    "emulate");
	assert_string_equal(params_invlpgb_bug_name(PARAM_BUG_STRIDE),
			    "stride");
	assert_string_equal(params_invlpgb_bug_name(PARAM_BUG_NO_TLBSYNC),
			    "no-tlbsync");
	assert_string_equal(params_invlpgb_bug_name(PARAM_BUG_NO_GLOBAL),
			    "no-global");
	assert_string_equal(params_invlpgb_bug_name(PARAM_BUG_PCID), "pcid");
	assert_string_equal(params_invlpgb_bug_name(PARAM_BUG_PCID + 1), "?");
	assert_string_equal(params_invlpgb_mode_name(99), "?");
	assert_string_equal(params_invlpgb_bug_name(-1), "?");
}

static void test_invlpgb_bad(void **state)
{
	struct param_invlpgb v;

	(void)state;
	v = invlpgb("emulated,bug=counts,bugs=count,", 4);
	assert_int_equal(v.mode, PARAM_INVLPGB_AUTO);
	assert_int_equal(v.bug, PARAM_BUG_NONE);
	/* Notes without the word: lib/cmdline puts it in front. */
	assert_string_equal(got.msg[0], "mode 'emulated': expected "
					"auto|off|emulate|force: using 'auto'");
	assert_string_equal(got.msg[1],
			    "bug 'counts': expected none|count|stride|"
			    "no-tlbsync|no-global|pcid: using 'none'");
	assert_string_equal(got.msg[2],
			    "item 'bugs=count': expected bug=none|count|stride|"
			    "no-tlbsync|no-global|pcid: skipped");
	assert_string_equal(got.msg[3],
			    "item '': expected bug=none|count|stride|"
			    "no-tlbsync|no-global|pcid: skipped");
	v = invlpgb("off,bug=count", 1);
	assert_int_equal(v.mode, PARAM_INVLPGB_OFF);
	assert_int_equal(v.bug, PARAM_BUG_NONE);
	assert_string_equal(got.msg[0],
			    "bug=count: no effect with 'off': ignored");
	v = invlpgb("force,bug=", 1);
	assert_int_equal(v.mode, PARAM_INVLPGB_FORCE);
	assert_string_equal(got.msg[0], "bug '': expected none|count|stride|"
					"no-tlbsync|no-global|pcid: using "
					"'none'");
	v = invlpgb(",bug=stride", 1);
	assert_int_equal(v.mode, PARAM_INVLPGB_AUTO);
	assert_int_equal(v.bug, PARAM_BUG_STRIDE);
	/* As a user sees them. */
	expect_diags("invlpgb=off,bug=count", &(struct bench_params){0}, 1,
		     "cmdline: 'invlpgb=off,bug=count': bug=count: no effect "
		     "with 'off': ignored");
}

static void test_list_format(void **state)
{
	struct cmdline_list l = {
		4, {1, 4096, PARAM_TARGETS_ALL, PARAM_TARGETS_AUTO}};
	struct cmdline_list none = {0};
	char buf[32];

	(void)state;
	assert_int_equal(params_list_format(&l, buf, sizeof(buf)), 15);
	assert_string_equal(buf, "1,4096,all,auto");
	memset(buf, 'Z', sizeof(buf));
	assert_int_equal(params_list_format(&l, buf, 5), 15);
	assert_string_equal(buf, "1,40");
	assert_int_equal(buf[5], 'Z');
	assert_int_equal(params_list_format(&l, NULL, 0), 15);
	assert_int_equal(params_list_format(&none, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	l.n = 1;
	l.v[0] = 0;
	params_list_format(&l, buf, sizeof(buf));
	assert_string_equal(buf, "0");
}

/* Whether a collected diagnostic holds text. */
static bool any_has(const char *text)
{
	for (size_t i = 0; i < got.n; i++) {
		if (strstr(got.msg[i], text))
			return true;
	}
	return false;
}

static void test_from_config(void **state)
{
	struct bench_params p;

	(void)state;
	assert_int_equal(from_line("", &p), 0);
	expect_list(&p.bench, 4, 0, 1, 2, 3);
	expect_list(&p.strategies, 6, 0, 1, 2, 3, 4, 5);
	expect_list(&p.pages, 7, 1, 2, 8, 32, 33, 64, 512);
	expect_list(&p.targets, 1, PARAM_TARGETS_AUTO);
	assert_int_equal(p.invlpgb.mode, PARAM_INVLPGB_AUTO);
	assert_int_equal(p.invlpgb.bug, PARAM_BUG_NONE);
	assert_int_equal(p.samples, 200);
	assert_int_equal(p.warmup, 20);
	assert_int_equal(p.seed, 1);
	assert_int_equal(p.reclaim_mb, 0);
	assert_int_equal(p.hot_mb, 0);
	assert_true(p.writers);
	assert_false(p.raw);
	assert_false(p.delay.on);
	assert_int_equal(p.duration_ms, 100);
	assert_int_equal(p.timeline_ms, 1);
	assert_int_equal(p.budget_s, 12);
	assert_false(p.handler_timing);
	assert_false(p.flushloop_local);
	assert_int_equal(from_line("selftest=flushloop-local", &p), 0);
	assert_true(p.flushloop_local);
	assert_int_equal(from_line("handler_timing=on", &p), 0);
	assert_true(p.handler_timing);
	assert_int_equal(from_line("bench=shootdown strategies=ipi-range,"
				   "invlpgb pages=1,33 targets=2,all "
				   "samples=1000000 warmup=0 "
				   "invlpgb=emulate,bug=count seed=0",
				   &p),
			 0);
	expect_list(&p.bench, 1, 1);
	expect_list(&p.strategies, 2, 1, 4);
	expect_list(&p.pages, 2, 1, 33);
	expect_list(&p.targets, 2, 2, PARAM_TARGETS_ALL);
	assert_int_equal(p.invlpgb.mode, PARAM_INVLPGB_EMULATE);
	assert_int_equal(p.invlpgb.bug, PARAM_BUG_COUNT);
	assert_int_equal(p.samples, 1000000);
	assert_int_equal(p.warmup, 0);
	assert_int_equal(p.seed, 0);
	/* Diagnostics come in the order of the words, in one style. */
	assert_int_equal(from_line("bench=none strategies=x pages=0 "
				   "targets=y invlpgb=z",
				   &p),
			 7);
	assert_int_equal(p.bench.n, 0);
	assert_string_equal(
		got.msg[0],
		"cmdline: 'strategies=x': item 'x': " STRATEGIES_EXPECTED
		": skipped");
	assert_int_equal(p.strategies.n, 6);
	assert_int_equal(p.pages.n, 7);
	expect_list(&p.targets, 1, PARAM_TARGETS_AUTO);
	assert_string_equal(got.msg[6], "cmdline: 'invlpgb=z': mode 'z': "
					"expected auto|off|emulate|force: "
					"using 'auto'");
	assert_int_equal(count_prefix("cmdline: "), 7);
}

/* Every key has help, a default, and the default parses as a word. */
static void test_options_table(void **state)
{
	struct bench_params p;
	char line[256];

	(void)state;
	assert_int_equal(config_nopts + bench_nopts, 27);
	for (size_t i = 0; i < bench_nopts; i++) {
		const struct cmdline_opt *o = &bench_opts[i];

		assert_non_null(o->key);
		assert_non_null(o->help);
		assert_true(strlen(o->help) > 10);
		assert_non_null(o->def);
		assert_ptr_equal(cmdline_find(bench_opts, bench_nopts, o->key,
					      strlen(o->key)),
				 o);
		/* No key in both tables: the kernel's would win. */
		assert_null(cmdline_find(config_opts, config_nopts, o->key,
					 strlen(o->key)));
		snprintf(line, sizeof(line), "%s=%s", o->key, o->def);
		assert_int_equal(from_line(line, &p), 0);
		assert_true(bench_given(&p, o->key));
	}
}

static void test_values(void **state)
{
	struct bench_params p;

	(void)state;
	assert_int_equal(from_line("exit=reboot bench=shootdown,reclaim "
				   "seed=12345 raw=on "
				   "delay_handler=ipi-range:5",
				   &p),
			 0);
	assert_int_equal(cfg.exit_mode, EXIT_REBOOT);
	expect_list(&p.bench, 2, 1, 2);
	assert_int_equal(p.seed, 12345);
	assert_true(p.raw);
	assert_true(p.delay.on && p.delay.strategy == 1 && p.delay.cycles == 5);
	assert_int_equal(from_line("bench=none seed=18446744073709551615", &p),
			 0);
	assert_int_equal(p.bench.n, 0);
	assert_true(p.seed == UINT64_MAX);
	expect_one("seed=x", "cmdline: 'seed=x': expected a number in "
			     "0..18446744073709551615: using default '1'");
	assert_int_equal(from_line("seed=x", &p), 1);
	assert_int_equal(p.seed, 1);
	/* A QEMU -kernel style line: image path first. */
	assert_int_equal(
		from_line("/boot/shootdown.elf console=com1,115200 "
			  "exit=reboot cpus=4 bench=shootdown seed=7\n",
			  &p),
		0);
	assert_int_equal(cfg.cpus, 4);
	expect_list(&p.bench, 1, 1);
	assert_int_equal(p.seed, 7);
}

/* The numbers' ranges are checked once, by the command line. */
static void test_bench_keys(void **state)
{
	struct bench_params p;

	(void)state;
	assert_int_equal(from_line("samples=1 warmup=100000", &p), 0);
	assert_int_equal(p.samples, 1);
	assert_int_equal(p.warmup, 100000);
	expect_one("samples=0", "cmdline: 'samples=0': out of range "
				"1..1000000: using default '200'");
	expect_one("samples=1000001", "cmdline: 'samples=1000001': out of "
				      "range 1..1000000: using default '200'");
	expect_one("warmup=100001", "cmdline: 'warmup=100001': out of range "
				    "0..100000: using default '20'");
	expect_one("invlpgb=", "cmdline: 'invlpgb=': missing value: using "
			       "default 'auto'");
	assert_int_equal(from_line("samples=0", &p), 1);
	assert_int_equal(p.samples, 200);
	assert_int_equal(from_line("warmup=100001", &p), 1);
	assert_int_equal(p.warmup, 20);
}

/* A value equal to the default still counts as the user's. */
static void test_given(void **state)
{
	struct bench_params p;

	(void)state;
	assert_int_equal(from_line("samples=200 budget_s=0 reclaim_mb=x", &p),
			 1);
	assert_true(bench_given(&p, "samples"));
	assert_true(bench_given(&p, "budget_s"));
	assert_int_equal(p.budget_s, 0);
	assert_false(bench_given(&p, "reclaim_mb"));
	assert_false(bench_given(&p, "warmup"));
	assert_false(bench_given(&p, "nosuchkey"));
}

/* 32 pages of 3 digits is the longest useful pages= value. */
static void test_bench_key_lengths(void **state)
{
	struct bench_params p;
	char line[256];

	(void)state;
	strcpy(line, "pages=");
	for (int i = 0; i < 32; i++)
		sprintf(line + strlen(line), "%s%d", i ? "," : "", 481 + i);
	assert_int_equal(strlen(line), 6 + 127);
	assert_int_equal(from_line(line, &p), 0);
	assert_int_equal(p.pages.n, 32);
	strcat(line, "0");
	assert_int_equal(from_line(line, &p), 1);
	assert_non_null(strstr(got.msg[0], "longer than 127 bytes"));
	strcpy(line, "invlpgb=emulate,bug=stride,bug=");
	memset(line + strlen(line), 'x', 8 + 31 - strlen(line));
	line[8 + 31] = '\0';
	from_line(line, &p);
	assert_false(any_has("longer than"));
	strcat(line, "x");
	assert_int_equal(from_line(line, &p), 1);
	assert_non_null(strstr(got.msg[0], "longer than 31 bytes"));
}

static void test_bench_length(void **state)
{
	struct bench_params p;
	char line[160];

	(void)state;
	strcpy(line, "bench=");
	memset(line + 6, 'b', 127);
	line[6 + 127] = '\0';
	from_line(line, &p);
	assert_false(any_has("longer than"));
	strcat(line, "c");
	assert_int_equal(from_line(line, &p), 1);
	assert_non_null(strstr(got.msg[0], "longer than 127 bytes: using "
					   "default 'all'"));
	expect_list(&p.bench, 4, 0, 1, 2, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rng_known_values),
		cmocka_unit_test(test_rng_below_sequence),
		cmocka_unit_test(test_rng_below_bounds),
		cmocka_unit_test(test_rng_shuffle),
		cmocka_unit_test(test_pages_good),
		cmocka_unit_test(test_pages_default_as_numbers),
		cmocka_unit_test(test_pages_bad),
		cmocka_unit_test(test_pages_too_many),
		cmocka_unit_test(test_targets_parse),
		cmocka_unit_test(test_targets_default),
		cmocka_unit_test(test_targets_resolve),
		cmocka_unit_test(test_targets_resolve_full),
		cmocka_unit_test(test_names_good),
		cmocka_unit_test(test_names_bad),
		cmocka_unit_test(test_invlpgb),
		cmocka_unit_test(test_invlpgb_bad),
		cmocka_unit_test(test_list_format),
		cmocka_unit_test(test_from_config),
		cmocka_unit_test(test_options_table),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_bench_keys),
		cmocka_unit_test(test_given),
		cmocka_unit_test(test_bench_key_lengths),
		cmocka_unit_test(test_bench_length),
		cmocka_unit_test(test_delay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
