// SPDX-License-Identifier: MIT
/*
 * Host tests of bench/plan.c: estimates that follow the cost model, and
 * reductions that fit the budget while keeping what the plan promises
 * (every page count, responder counts 1 and all, whole PMDs, minimums,
 * and values the user set left alone).
 */
#include "unit.h"
#include "bench/plan.h"

#define KHZ 2000000ull /* 2 GHz: 2,000,000 cycles a millisecond */

/*
 * Single-threaded TCG at 4 CPUs: a round to all costs 3x a round to one,
 * and a page copy is slow.
 */
static const struct plan_costs tcg4 = {
	.tsc_khz = KHZ,
	.ipi_one = 40000,
	.ipi_all = 120000,
	.cr3 = 20000,
	.invlpg = 3000,
	.page_copy = 30000,
	.responders = 3,
};

/* A server: 191 responders, a multicast round costs ~3x a unicast one. */
static const struct plan_costs server = {
	.tsc_khz = KHZ,
	.ipi_one = 2000,
	.ipi_all = 6000,
	.cr3 = 400,
	.invlpg = 150,
	.page_copy = 800,
	.responders = 191,
};

static void defaults(struct plan *p, uint32_t responders)
{
	static const uint32_t pages[] = {1, 2, 8, 32, 33, 64, 512};

	memset(p, 0, sizeof(*p));
	for (int e = 0; e < PLAN_EXPS; e++)
		p->run[e] = true;
	p->primitives_cycles = 100 * KHZ; /* 100 ms */
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		p->sd.pages[p->sd.npages++] = pages[i];
	for (uint32_t t = 1; t < responders; t *= 2)
		p->sd.targets[p->sd.ntargets++] = t;
	p->sd.targets[p->sd.ntargets++] = responders;
	p->sd.ipi_strategies = 4;
	p->sd.samples = 200;
	p->sd.warmup = 20;
	p->sd.classes = 2;
	p->rc.cold_pages = 338 * 256; /* 338 MiB */
	p->rc.hot_pages = 56 * 256;
	p->rc.workers = responders - 1;
	p->rc.per_page_passes = 3;
	p->rc.batches[p->rc.nbatches++] = 1;
	p->rc.batches[p->rc.nbatches++] = 31;
	p->rc.batches[p->rc.nbatches++] = 512;
	p->rc.duration_ms = 100;
	p->fl.strategies = 3;
	p->fl.cpu_counts = 3;
	p->fl.controls = 1;
	p->fl.duration_ms = 100;
}

static void test_no_budget_changes_nothing(void **state)
{
	struct plan p, before;

	(void)state;
	defaults(&p, 3);
	before = p;
	plan_make(&p, &tcg4);
	assert_int_equal(p.sd.samples, before.sd.samples);
	assert_int_equal(p.sd.ntargets, before.sd.ntargets);
	assert_int_equal(p.rc.cold_pages, before.rc.cold_pages);
	assert_int_equal(p.fl.duration_ms, before.fl.duration_ms);
	assert_int_equal(p.nnotes, 0);
	assert_true(p.fits);
	assert_int_equal(p.est_ms[PLAN_PRIMITIVES], 100);
	assert_true(p.total_ms > 1000); /* the defaults take a while */
}

static void test_estimates_follow_the_model(void **state)
{
	struct plan p;
	uint64_t one, two;

	(void)state;
	defaults(&p, 3);
	one = plan_shootdown_cycles(&p.sd, &tcg4);
	p.sd.samples = 2 * 200 + 20; /* twice the samples + warmup */
	two = plan_shootdown_cycles(&p.sd, &tcg4);
	assert_int_equal(two, 2 * one);
	/* A bigger cold region costs more; so does a slower IPI. */
	one = plan_reclaim_cycles(&p.rc, &tcg4);
	p.rc.cold_pages *= 2;
	assert_true(plan_reclaim_cycles(&p.rc, &tcg4) > one);
	/* Flushloop: (strategies x counts + controls) x duration. */
	assert_int_equal(plan_flushloop_cycles(&p.fl, &tcg4),
			 (3ull * 3 + 1) * 100 * KHZ);
}

/* With a pilot, a sample costs what the pilot saw, between its corners. */
static void test_shootdown_pilot(void **state)
{
	struct plan p;

	(void)state;
	defaults(&p, 3);
	p.sd.npages = 3;
	p.sd.pages[0] = 1;
	p.sd.pages[1] = 257;
	p.sd.pages[2] = 513;
	p.sd.ntargets = 2;
	p.sd.targets[0] = 1;
	p.sd.targets[1] = 3;
	p.sd.classes = 0;
	p.sd.samples = 10;
	p.sd.warmup = 0;
	p.sd.pilot_k[0] = 1;
	p.sd.pilot_k[1] = 513;
	p.sd.pilot[0][0] = 100;
	p.sd.pilot[0][1] = 1000;
	p.sd.pilot[1][0] = 300;
	p.sd.pilot[1][1] = 3000;
	/* 1 target: 100, 550, 1000; all 3: 300, 1650, 3000. */
	assert_int_equal(plan_shootdown_cycles(&p.sd, &tcg4),
			 10 * (100 + 550 + 1000 + 300 + 1650 + 3000));
	/* 2 of 3 targets: half way between. */
	p.sd.targets[1] = 2;
	assert_int_equal(plan_shootdown_cycles(&p.sd, &tcg4),
			 10 * (100 + 550 + 1000 + 200 + 1100 + 2000));
}

/* With a pilot, reclaim's paging is what the pilot measured, per page. */
static void test_reclaim_pilot(void **state)
{
	struct plan p;
	uint64_t pages = 1024, windows, want;

	(void)state;
	defaults(&p, 3);
	p.rc.cold_pages = pages;
	p.rc.hot_pages = 0;
	p.rc.pilot_page = 5000;
	p.rc.pilot_batch = 1000;
	p.rc.pilot_setup = 7;
	/* warm-up 2 quarters, settling 1, baseline 4, after 4 */
	windows = (3 + 3) * 100 * KHZ * 11 / 4;
	/* 3 per-page passes; batches 1, 31, 512 pay 1/b of the flush. */
	want = 3 * pages * 5000 + pages * (1000 + 4000) +
	       pages * (1000 + 4000 / 31) + pages * (1000 + 4000 / 512);
	assert_int_equal(plan_reclaim_cycles(&p.rc, &tcg4),
			 windows + pages * 7 + want);
}

/*
 * Each strategy's writer pass pages out one batch more, at least
 * writer_pages (never more than the cold region), at the pilot's cost
 * per page.
 */
static void test_reclaim_writer_passes(void **state)
{
	struct plan p;
	uint64_t without, with;

	(void)state;
	defaults(&p, 3);
	p.rc.cold_pages = 1024;
	p.rc.pilot_page = 5000;
	p.rc.pilot_batch = 5000; /* batches cost as much: equal passes */
	p.rc.pilot_setup = 7;
	without = plan_reclaim_cycles(&p.rc, &tcg4);
	p.rc.writer_pages = 64;
	with = plan_reclaim_cycles(&p.rc, &tcg4);
	/* 3 per-page passes and batch 1, 31: 64 each; batch 512: 512 */
	assert_int_equal(with - without, (5 * 64 + 512) * 5000);
	p.rc.writer_pages = 4096; /* capped at the cold region */
	assert_int_equal(plan_reclaim_cycles(&p.rc, &tcg4) - without,
			 6 * 1024 * 5000);
}

static void test_serial_rounds_cost_more(void **state)
{
	struct plan p;
	struct plan_costs parallel = tcg4;

	(void)state;
	defaults(&p, 3);
	parallel.ipi_all = parallel.ipi_one; /* responders side by side */
	assert_true(plan_reclaim_cycles(&p.rc, &tcg4) >
		    plan_reclaim_cycles(&p.rc, &parallel));
}

static void check_fits(const struct plan *p, uint64_t budget_ms)
{
	assert_true(p->fits);
	assert_true(p->total_ms <= budget_ms);
}

/*
 * What the experiments print is planned at the console's cost a byte:
 * 87 us on a UART at 115200 baud (Bochs, a server's serial port), where
 * the default suite's records took half its time and the plan, which
 * left them out, came out at 5.7 s for a 10.1 s run.
 */
static void test_console_output_is_planned(void **state)
{
	struct plan p, quiet;
	struct plan_costs uart = tcg4;

	(void)state;
	uart.console_byte = 87 * KHZ / 1000; /* 87 us */
	defaults(&p, 3);
	quiet = p;
	plan_make(&quiet, &tcg4);
	plan_make(&p, &uart);
	/*
	 * 7 page counts x (5 runs to 1, 5 to 2, 10 to all (broadcast too),
	 * 5 for the second distance class) x 600 bytes.
	 */
	assert_int_equal(plan_output_cycles(&p, PLAN_SHOOTDOWN, &uart),
			 7ull * 25 * 600 * uart.console_byte);
	assert_int_equal(plan_output_cycles(&p, PLAN_SHOOTDOWN, &tcg4), 0);
	/*
	 * INVLPGB adds invlpgb and invlpgb-global, invlpgb-linux one more,
	 * at each of the 4 responder configurations (3 counts, 1 class).
	 */
	p.sd.invlpgb = true;
	assert_int_equal(plan_output_cycles(&p, PLAN_SHOOTDOWN, &uart),
			 7ull * (25 + 4 * 2) * 600 * uart.console_byte);
	p.sd.invlpgb_linux = true;
	assert_int_equal(plan_output_cycles(&p, PLAN_SHOOTDOWN, &uart),
			 7ull * (25 + 4 * 3) * 600 * uart.console_byte);
	p.sd.invlpgb = p.sd.invlpgb_linux = false;
	assert_true(p.est_ms[PLAN_SHOOTDOWN] >
		    quiet.est_ms[PLAN_SHOOTDOWN] + 9000);
	/* Reclaim's runs and its control; flushloop's points and control. */
	p.rc.nruns = 6;
	assert_int_equal(plan_output_cycles(&p, PLAN_RECLAIM, &uart),
			 7ull * 900 * uart.console_byte);
	assert_int_equal(plan_output_cycles(&p, PLAN_FLUSHLOOP, &uart),
			 10ull * 800 * uart.console_byte);
	p.run[PLAN_FLUSHLOOP] = false;
	assert_int_equal(plan_output_cycles(&p, PLAN_FLUSHLOOP, &uart), 0);
}

/* Under a budget, the output is not cut: the samples make room for it. */
static void test_slow_console_leaves_fewer_samples(void **state)
{
	struct plan p, quiet;
	struct plan_costs uart = tcg4;

	(void)state;
	uart.console_byte = 87 * KHZ / 1000;
	defaults(&p, 3);
	p.budget_ms = 30000;
	quiet = p;
	plan_make(&quiet, &tcg4);
	plan_make(&p, &uart);
	check_fits(&quiet, 30000);
	check_fits(&p, 30000);
	assert_true(p.sd.samples < quiet.sd.samples);
	assert_int_equal(p.sd.npages, 7);
}

static void test_fits_and_keeps_the_shape(void **state)
{
	struct plan p;

	(void)state;
	defaults(&p, 3);
	p.budget_ms = 15000;
	plan_make(&p, &tcg4);
	check_fits(&p, 15000);
	/* Every page count and strategy stays. */
	assert_int_equal(p.sd.npages, 7);
	assert_int_equal(p.sd.ipi_strategies, 4);
	/* 1, 2, 3 responders: already three, nothing to thin. */
	assert_int_equal(p.sd.ntargets, 3);
	assert_true(p.sd.samples >= PLAN_MIN_SAMPLES);
	assert_true(p.sd.warmup >= PLAN_MIN_WARMUP);
	/* Whole PMDs, at least one, no more than configured. */
	assert_int_equal(p.rc.cold_pages % PMD_PAGES, 0);
	assert_true(p.rc.cold_pages >= PMD_PAGES);
	assert_true(p.rc.cold_pages < 338 * 256);
	assert_int_equal(p.rc.nbatches, 3);
	assert_true(p.fl.duration_ms >= PLAN_MIN_DURATION_MS);
	assert_true(p.nnotes >= 2);
}

static void test_server_targets_thinned_to_ends_and_middle(void **state)
{
	struct plan p;

	(void)state;
	defaults(&p, 191);
	p.sd.samples = 5000;	       /* more than its share can take */
	p.rc.cold_pages = 20480 * 256; /* the seed's 20 GiB */
	p.rc.hot_pages = 2048 * 256;
	p.budget_ms = 60000;
	plan_make(&p, &server);
	check_fits(&p, 60000);
	assert_int_equal(p.sd.ntargets, 3);
	assert_int_equal(p.sd.targets[0], 1);
	assert_int_equal(p.sd.targets[2], 191);
	assert_true(p.sd.targets[1] > 1 && p.sd.targets[1] < 191);
	assert_int_equal(p.sd.npages, 7);
	assert_string_equal(p.notes[0],
			    "shootdown: responder counts thinned from 9 to "
			    "1, 16, 191");
}

/* Over budget because of reclaim alone: shootdown keeps its shape. */
static void test_fitting_shootdown_is_not_thinned(void **state)
{
	struct plan p;

	(void)state;
	defaults(&p, 191);
	p.sd.samples = 1;
	p.sd.warmup = 0;
	p.rc.cold_pages = 20480 * 256;
	p.budget_ms = 60000;
	plan_make(&p, &server);
	assert_int_equal(p.sd.ntargets, 9);
	assert_int_equal(p.sd.samples, 1);
	assert_true(p.rc.cold_pages < 20480 * 256);
}

/* A budget of years: no product of pages and cycles may wrap. */
static void test_huge_budget_no_overflow(void **state)
{
	struct plan p;

	(void)state;
	defaults(&p, 191);
	p.rc.cold_pages = 20480 * 256;
	p.rc.pilot_page = 3000000000ull; /* a slow page: 1.5 s each */
	p.rc.pilot_batch = 1000;
	p.budget_ms = 1000000ull * 1000;
	plan_make(&p, &server);
	assert_true(p.rc.cold_pages <= 20480 * 256);
	assert_true(p.rc.cold_pages >= PMD_PAGES);
	assert_int_equal(p.rc.cold_pages % PMD_PAGES, 0);
}

static void test_user_values_are_never_reduced(void **state)
{
	struct plan p;

	(void)state;
	defaults(&p, 3);
	p.sd.samples = 100000;
	p.sd.samples_set = true;
	p.rc.cold_set = true;
	p.fl.duration_set = true;
	p.sd.targets_set = true;
	p.budget_ms = 15000;
	plan_make(&p, &tcg4);
	assert_int_equal(p.sd.samples, 100000);
	assert_int_equal(p.rc.cold_pages, 338 * 256);
	assert_int_equal(p.fl.duration_ms, 100);
	assert_false(p.fits);
	assert_true(p.nnotes >= 1);
	assert_non_null(strstr(p.notes[p.nnotes - 1], "does not fit"));
}

static void test_small_experiment_gives_its_share_away(void **state)
{
	struct plan p, alone;

	(void)state;
	defaults(&p, 3);
	/* flushloop needs little: 10 rounds (9 points and the control) */
	p.fl.duration_ms = 9;
	p.budget_ms = 15000;
	alone = p;
	plan_make(&p, &tcg4);
	assert_int_equal(p.fl.duration_ms, 9);
	/* Without flushloop, the others get no more than with it. */
	alone.run[PLAN_FLUSHLOOP] = false;
	plan_make(&alone, &tcg4);
	assert_int_equal(alone.sd.samples, p.sd.samples);
}

static void test_no_tsc_rate_no_plan(void **state)
{
	struct plan p;
	struct plan_costs c = tcg4;

	(void)state;
	defaults(&p, 3);
	c.tsc_khz = 0;
	p.budget_ms = 1;
	plan_make(&p, &c);
	assert_int_equal(p.sd.samples, 200);
	assert_int_equal(p.nnotes, 0);
}

static void test_tiny_budget_stops_at_minimums(void **state)
{
	struct plan p;

	(void)state;
	defaults(&p, 3);
	p.budget_ms = 1;
	plan_make(&p, &tcg4);
	assert_int_equal(p.sd.samples, PLAN_MIN_SAMPLES);
	assert_int_equal(p.sd.warmup, PLAN_MIN_WARMUP);
	assert_int_equal(p.rc.cold_pages, PMD_PAGES);
	assert_int_equal(p.fl.duration_ms, PLAN_MIN_DURATION_MS);
	assert_false(p.fits);
}

/* Rounds grow with targets at the slope measured; the rest stays. */
static void test_costs_at_more_cpus(void **state)
{
	struct plan_costs c, one = tcg4;

	(void)state;
	plan_costs_at(&tcg4, 192, &c);
	assert_int_equal(c.responders, 191);
	/* (120000 - 40000) / 2 responders more = 40000 a target */
	assert_int_equal(c.ipi_all, 40000 + 40000ull * 190);
	assert_int_equal(c.ipi_all_busy, c.ipi_all); /* none measured */
	assert_int_equal(c.ipi_one, tcg4.ipi_one);
	assert_int_equal(c.cr3, tcg4.cr3);
	assert_int_equal(c.tsc_khz, tcg4.tsc_khz);
	/* Busy responders keep the factor they had here. */
	one.ipi_all_busy = 240000;
	plan_costs_at(&one, 192, &c);
	assert_int_equal(c.ipi_all_busy, 2 * c.ipi_all);
	/* One responder here: no slope to extrapolate. */
	one = tcg4;
	one.responders = 1;
	one.ipi_all = one.ipi_one;
	plan_costs_at(&one, 192, &c);
	assert_int_equal(c.ipi_all, one.ipi_one);
}

static const struct plan_machine epyc = {
	.cpus = 192,
	.classes = 5,
	.invlpgb = true,
	.cold_pages = 20 * 262144ull,
	.hot_pages = 110000,
};

/* The default suite's shape at 192 cpus, uncut, then cut to a budget. */
static void test_default_suite_on_a_server(void **state)
{
	struct plan_costs c;
	struct plan p;
	uint64_t uncut;

	(void)state;
	plan_costs_at(&server, 192, &c);
	plan_default_suite(&epyc, &c, 0, &p, &uncut);
	assert_int_equal(p.sd.npages, 7);
	assert_int_equal(p.sd.ntargets, 9); /* 1, 2, ..., 128, 191 */
	assert_int_equal(p.sd.targets[8], 191);
	assert_int_equal(p.sd.samples, 200);
	assert_true(p.sd.invlpgb);
	assert_true(p.sd.invlpgb_linux);
	assert_int_equal(p.sd.classes, 5);
	assert_int_equal(p.rc.workers, 191);
	assert_int_equal(p.rc.per_page_passes, 3);
	assert_int_equal(p.rc.nbatches, 5);
	assert_int_equal(p.fl.cpu_counts, 9); /* 1, 2, ..., 128, 192 */
	assert_int_equal(p.fl.strategies, 3);
	assert_int_equal(p.total_ms, uncut);
	assert_true(p.fits);
	assert_true(uncut > 60000); /* 20 GiB paged out 8 ways, at least */
	plan_default_suite(&epyc, &c, 60000, &p, &uncut);
	assert_true(p.total_ms < uncut);
	assert_true(p.fits);
	assert_true(p.total_ms <= 60000);
	assert_int_equal(p.est_ms[PLAN_RECLAIM] < 60000, true);
	/* No tsc rate: no estimate, nothing cut. */
	c.tsc_khz = 0;
	plan_default_suite(&epyc, &c, 60000, &p, &uncut);
	assert_int_equal(uncut, 0);
	assert_int_equal(p.sd.ntargets, 9);
}

/* primitives counts the refill: 4 reads a page of its sets, 25 samples. */
static void test_primitives_counts_the_refill(void **state)
{
	struct plan_costs c = tcg4;
	uint64_t none, l2;

	(void)state;
	c.touch = 1000;
	none = plan_primitives_cycles(200, 1, &c);
	c.l2_tlb = 512;
	l2 = plan_primitives_cycles(200, 1, &c);
	assert_int_equal(l2 - none, 25ull * 4 * 3 * 512 * 1000);
	/* Fewer samples than a refill series has: those. */
	assert_int_equal(
		plan_primitives_cycles(10, 1, &c) -
			(10ull * (8 * (20000 + 3000) + 4 * 40000 * 2)),
		10ull * (4 * (16 + 3 * 512) * 1000 + 4 * 40000 + 653 * 3000));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_budget_changes_nothing),
		cmocka_unit_test(test_estimates_follow_the_model),
		cmocka_unit_test(test_console_output_is_planned),
		cmocka_unit_test(test_slow_console_leaves_fewer_samples),
		cmocka_unit_test(test_shootdown_pilot),
		cmocka_unit_test(test_reclaim_pilot),
		cmocka_unit_test(test_reclaim_writer_passes),
		cmocka_unit_test(test_serial_rounds_cost_more),
		cmocka_unit_test(test_fits_and_keeps_the_shape),
		cmocka_unit_test(
			test_server_targets_thinned_to_ends_and_middle),
		cmocka_unit_test(test_fitting_shootdown_is_not_thinned),
		cmocka_unit_test(test_huge_budget_no_overflow),
		cmocka_unit_test(test_user_values_are_never_reduced),
		cmocka_unit_test(test_small_experiment_gives_its_share_away),
		cmocka_unit_test(test_no_tsc_rate_no_plan),
		cmocka_unit_test(test_tiny_budget_stops_at_minimums),
		cmocka_unit_test(test_costs_at_more_cpus),
		cmocka_unit_test(test_default_suite_on_a_server),
		cmocka_unit_test(test_primitives_counts_the_refill),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
