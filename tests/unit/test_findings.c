// SPDX-License-Identifier: MIT
/*
 * Host tests of bench/findings_calc.c: the decisions the guest prints at
 * the end of a run, on synthetic records (a known frontier, a tie, no
 * INVLPGB, the seed's interrupt arithmetic, the loss and its interval,
 * which findings a machine cannot answer, a full book).
 */
#include "unit.h"
#include "bench/findings.h"
#include "bench/result.h"
#include "role_of.h"

static struct findings_book book;
static const struct findings_machine metal = {.invlpgb_cpuid = true};

static void note(const char *bench, const char *strategy, const char *mode,
		 uint64_t pages, uint64_t targets, uint64_t p50,
		 const struct result_field *fields, size_t nfields)
{
	struct result r = {.bench = bench,
			   .strategy = strategy,
			   .ipi_mode = mode,
			   .pages = pages,
			   .targets = targets,
			   .n = 10,
			   .fields = fields,
			   .nfields = nfields};

	r.st.p50 = p50;
	role_of(bench, strategy, &r.role, &r.flush);
	findings_note(&book, &r, (unsigned)book.n + 1);
}

static void shootdown(const char *strategy, uint64_t pages, uint64_t targets,
		      uint64_t p50)
{
	note("shootdown", strategy, "unicast", pages, targets, p50, NULL, 0);
}

static int reset(void **state)
{
	(void)state;
	memset(&book, 0, sizeof(book));
	return 0;
}

/*
 * IPIs cost 100 a target, INVLPGB 250 flat: INVLPGB is faster from 3
 * targets at every page count, just where Linux's rule (4 active CPUs)
 * switches to it, so the rule picks the slower way nowhere.
 */
static void test_known_frontier(void **state)
{
	struct findings f;

	(void)state;
	for (uint64_t pages = 1; pages <= 8; pages *= 8) {
		for (uint64_t t = 1; t <= 4; t++) {
			shootdown("ipi-linux", pages, t, 100 * t);
			shootdown("invlpgb", pages, t, 250);
		}
	}
	findings_decide(&book, &metal, &f);
	assert_null(f.cross.no_data);
	assert_string_equal(f.cross.ipi, "ipi-linux");
	assert_int_equal(f.cross.cells, 8);
	assert_int_equal(f.cross.nfrontier, 2);
	assert_int_equal(f.cross.frontier[0].pages, 1);
	assert_true(f.cross.frontier[0].lean);
	assert_int_equal(f.cross.frontier[0].lean_from, 3);
	assert_int_equal(f.cross.frontier[1].pages, 8);
	assert_int_equal(f.cross.frontier[1].lean_from, 3);
	assert_int_equal(f.cross.linux_slower, 0);
	assert_int_equal(f.cross.caveats, 0);
}

/*
 * INVLPGB faster from 2 targets: Linux's rule keeps IPIs at 2, the
 * slower way there. A later record of a cell (a distance sweep's
 * repeat) does not count; the all-but-self (broadcast) record does,
 * in place of the unicast one, as Linux sends the shorthand when it
 * flushes every other CPU. Each cell names the two records it used.
 */
static void test_linux_rule_and_first_record(void **state)
{
	struct findings f;

	(void)state;
	for (uint64_t t = 1; t <= 3; t++) {
		shootdown("ipi-linux", 1, t, 100 * t);
		shootdown("invlpgb", 1, t, 150);
	}
	shootdown("invlpgb", 1, 1, 1);
	note("shootdown", "ipi-linux", "broadcast", 1, 3, 140, NULL, 0);
	findings_decide(&book, &metal, &f);
	assert_int_equal(f.cross.cells, 3);
	assert_int_equal(f.cross.frontier[0].lean_from, 2);
	/* 3 targets: the broadcast 140 beats INVLPGB's 150, Linux picks it. */
	assert_int_equal(f.cross.linux_slower, 2);
	assert_int_equal(f.cross.npairs, 3);
	assert_int_equal(f.cross.pair[0].ipi_seq, 1);
	assert_int_equal(f.cross.pair[0].invlpgb_seq, 2);
	assert_false(f.cross.pair[0].broadcast);
	assert_int_equal(f.cross.pair[2].targets, 3);
	assert_int_equal(f.cross.pair[2].ipi_seq, 8);
	assert_true(f.cross.pair[2].broadcast);
	assert_false(f.cross.pair[1].linux_invlpgb);
	assert_true(f.cross.pair[2].linux_invlpgb);
}

/* Linux's own INVLPGB flush is compared where the run has it. */
static void test_invlpgb_linux_first(void **state)
{
	struct findings f;

	(void)state;
	shootdown("ipi-linux", 512, 1, 100);
	shootdown("invlpgb", 512, 1, 900);
	shootdown("invlpgb-linux", 512, 1, 50);
	findings_decide(&book, &metal, &f);
	assert_string_equal(f.cross.invlpgb, "invlpgb-linux");
	assert_int_equal(f.cross.cells, 1);
	assert_true(f.cross.frontier[0].lean);
	assert_int_equal(f.cross.pair[0].invlpgb_seq, 3);
}

/* A unicast shootdown record of a made-up name with the role given. */
static void shootdown_as(const char *strategy, enum result_role role,
			 enum flush_kind flush, uint64_t pages, uint64_t p50)
{
	struct result r = {.bench = "shootdown",
			   .strategy = strategy,
			   .role = role,
			   .flush = flush,
			   .ipi_mode = flush == FK_IPI ? "unicast" : NULL,
			   .pages = pages,
			   .targets = 1,
			   .n = 10};

	r.st.p50 = p50;
	findings_note(&book, &r, (unsigned)book.n + 1);
}

/*
 * The sides are found by the role their producer gave, never by name: a
 * record named as Linux's but a variant is passed over, one of any name
 * in Linux's role is compared, and its own name is the one printed.
 */
static void test_sides_by_role(void **state)
{
	struct findings f;

	(void)state;
	shootdown_as("ipi-linux", ROLE_VARIANT, FK_IPI, 1, 1);
	shootdown_as("trial-ipi", ROLE_LINUX, FK_IPI, 1, 300);
	shootdown_as("trial-invlpgb", ROLE_RANGE, FK_INVLPGB, 1, 200);
	findings_decide(&book, &metal, &f);
	assert_string_equal(f.cross.ipi, "trial-ipi");
	assert_string_equal(f.cross.invlpgb, "trial-invlpgb");
	assert_int_equal(f.cross.cells, 1);
	assert_int_equal(f.cross.pair[0].ipi_seq, 2);
	assert_int_equal(f.cross.pair[0].invlpgb_seq, 3);
	assert_true(f.cross.frontier[0].lean);
}

/* No record of a side: the side in words, kind then role, and why. */
static void test_side_without_records(void **state)
{
	struct findings f;

	(void)state;
	shootdown_as("ipi-range", ROLE_RANGE, FK_IPI, 1, 300);
	findings_decide(&book, &metal, &f);
	assert_string_equal(f.cross.ipi, "ipi-range");
	assert_string_equal(f.cross.invlpgb, "invlpgb-linux");
	assert_string_equal(f.cross.no_data, "no invlpgb records (strategies= "
					     "or invlpgb=off?)");
	assert_string_equal(f.tput.ipi, "ipi-range");
}

/* Equal p50s: INVLPGB is not faster; a tie is never a win. */
static void test_tie_is_not_a_win(void **state)
{
	struct findings f;

	(void)state;
	shootdown("ipi-range", 1, 1, 500);
	shootdown("invlpgb", 1, 1, 500);
	findings_decide(&book, &metal, &f);
	assert_string_equal(f.cross.ipi, "ipi-range");
	assert_int_equal(f.cross.cells, 1);
	assert_false(f.cross.frontier[0].lean);
}

/* No INVLPGB records: no data, saying whether CPUID has it. */
static void test_no_invlpgb(void **state)
{
	struct findings_machine none = {0};
	struct findings f;

	(void)state;
	shootdown("ipi-linux", 1, 1, 100);
	findings_decide(&book, &none, &f);
	assert_int_equal(f.cross.cells, 0);
	assert_non_null(strstr(f.cross.no_data, "CPUID has no INVLPGB"));
	assert_int_equal(f.cross.caveats, 0);
	findings_decide(&book, &metal, &f);
	assert_null(strstr(f.cross.no_data, "CPUID"));
	assert_non_null(f.tput.no_data);
	assert_false(f.irqs.have);
}

/* What makes a finding not a hardware answer, and where it applies. */
static void test_caveats(void **state)
{
	struct findings_machine tcg = {.tcg = true, .not_concurrent = true};
	const struct result_field delayed[] = {{"delay_cycles", 5000, false}};
	const struct result_field loss[] = {{"batch", 1, false},
					    {"worker_loss_pct", 50, false}};
	struct result emul = {.bench = "shootdown",
			      .strategy = "invlpgb",
			      .role = ROLE_RANGE,
			      .flush = FK_INVLPGB,
			      .pages = 1,
			      .targets = 1,
			      .n = 1,
			      .emulated = true};
	struct findings f;

	(void)state;
	emul.st.p50 = 10;
	findings_note(&book, &emul, (unsigned)book.n + 1);
	note("shootdown", "ipi-linux", NULL, 1, 1, 20, delayed, 1);
	note("reclaim", "per-page", NULL, 64, 3, 1, loss, 2);
	findings_decide(&book, &tcg, &f);
	/* Taking turns: a responder runs only when the initiator yields. */
	assert_int_equal(f.cross.caveats,
			 FC_EMULATED | FC_DELAYED | FC_TCG | FC_NOT_CONCURRENT);
	/* The loss has no INVLPGB model nor a delayed handler in it. */
	assert_int_equal(f.loss.caveats, FC_TCG | FC_NOT_CONCURRENT);
	assert_string_equal(findings_caveat_tag(FC_NOT_CONCURRENT),
			    "CPUs take turns");
	assert_string_equal(findings_caveat_tag(FC_EMULATED),
			    "INVLPGB emulated");
}

/* The seed: 20 GiB on 6 cores, 31.4M against 61.4K interrupts. */
static void test_interrupt_arithmetic(void **state)
{
	const struct result_field pp[] = {{"batch", 1, false},
					  {"irqs_received", 10752, false}};
	const struct result_field b512[] = {{"batch", 512, false},
					    {"irqs_received", 21, false}};
	struct findings f;

	(void)state;
	note("reclaim", "per-page", NULL, 3584, 3, 1, pp, 2);
	note("reclaim", "batch", NULL, 3584, 3, 1, b512, 2);
	findings_decide(&book, &metal, &f);
	assert_true(f.irqs.have);
	assert_int_equal(f.irqs.per_page, 786432);
	assert_int_equal(f.irqs.batch512, 1536);
	assert_int_equal(f.irqs.seed_per_page, 786432);
	assert_int_equal(f.irqs.seed_batch512, 1536);
	assert_int_equal(f.irqs.ratio_x100, 51200);
	/* 20 GiB on 6 targets, as the seed. */
	assert_int_equal(20 * findings_irqs_per_gib(6 * 262144, 262144),
			 31457280);
	assert_int_equal(findings_irqs_per_gib(5, 0), 0);
}

/* The loss keeps its interval where the record has one, not elsewhere. */
static void test_loss_interval(void **state)
{
	const struct result_field pp[] = {{"batch", 1, false},
					  {"worker_loss_pct", 53, false},
					  {"worker_loss_lo_pct", 48, false},
					  {"worker_loss_hi_pct", 58, false}};
	const struct result_field b512[] = {
		{"batch", 512, false}, {"worker_loss_pct", (uint64_t)-2, true}};
	struct findings f;

	(void)state;
	note("reclaim", "per-page", NULL, 512, 1, 1, pp, 4);
	note("reclaim", "batch", NULL, 512, 1, 1, b512, 2);
	findings_decide(&book, &metal, &f);
	assert_true(f.loss.per_page.has_ci);
	assert_int_equal(f.loss.per_page.pct, 53);
	assert_int_equal(f.loss.per_page.lo, 48);
	assert_int_equal(f.loss.per_page.hi, 58);
	assert_true(f.loss.batch512.have);
	assert_false(f.loss.batch512.has_ci);
	assert_int_equal(f.loss.batch512.pct, -2);
	assert_int_equal(f.loss.caveats, 0);
}

/* flushloop: one row a CPU count measured both ways, in order. */
static void test_throughput(void **state)
{
	const struct result_field c1i[] = {{"cpus", 1, false},
					   {"ops_per_s", 1000, false}};
	const struct result_field c1b[] = {{"cpus", 1, false},
					   {"ops_per_s", 1500, false}};
	const struct result_field c4b[] = {{"cpus", 4, false},
					   {"ops_per_s", 900, false}};
	struct findings f;

	(void)state;
	note("flushloop", "ipi-range", NULL, 1, 0, 1, c1i, 2);
	note("flushloop", "invlpgb", NULL, 1, 0, 1, c1b, 2);
	note("flushloop", "invlpgb", NULL, 1, 3, 1, c4b, 2);
	findings_decide(&book, &metal, &f);
	assert_null(f.tput.no_data);
	assert_int_equal(f.tput.n, 1);
	assert_int_equal(f.tput.row[0].cpus, 1);
	assert_int_equal(f.tput.row[0].ratio_x100, 150);
}

/* A full book counts what it could not keep. */
static void test_full_book(void **state)
{
	(void)state;
	for (int i = 0; i < FINDINGS_RECORDS + 3; i++)
		shootdown("ipi-page", 1, 1, 1);
	note("primitives", "invlpg", NULL, 1, 0, 1, NULL, 0);
	assert_int_equal(book.n, FINDINGS_RECORDS);
	assert_int_equal(book.dropped, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_known_frontier, reset),
		cmocka_unit_test_setup(test_linux_rule_and_first_record, reset),
		cmocka_unit_test_setup(test_invlpgb_linux_first, reset),
		cmocka_unit_test_setup(test_tie_is_not_a_win, reset),
		cmocka_unit_test_setup(test_sides_by_role, reset),
		cmocka_unit_test_setup(test_side_without_records, reset),
		cmocka_unit_test_setup(test_no_invlpgb, reset),
		cmocka_unit_test_setup(test_caveats, reset),
		cmocka_unit_test_setup(test_interrupt_arithmetic, reset),
		cmocka_unit_test_setup(test_loss_interval, reset),
		cmocka_unit_test_setup(test_throughput, reset),
		cmocka_unit_test_setup(test_full_book, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
