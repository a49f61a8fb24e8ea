// SPDX-License-Identifier: MIT
/*
 * Host tests of bench/fline.c and bench/findings_text.c: a findings line
 * puts its caveat before any figure, wraps onto continuation lines that
 * repeat it instead of cutting, and never passes FLINE_MAX - 1 bytes.
 */
#include "unit.h"
#include "bench/findings.h"

#define MAX_LINES 16

static char lines[MAX_LINES][FLINE_MAX];
static size_t nlines;

static void sink(const char *line, void *arg)
{
	(void)arg;
	assert_true(nlines < MAX_LINES);
	assert_true(strlen(line) < FLINE_MAX);
	strcpy(lines[nlines++], line);
}

static int reset(void **state)
{
	(void)state;
	nlines = 0;
	return 0;
}

/* Every machine tag and both of the records'. */
#define ALL_CAVEATS ((1u << FC_COUNT) - 1)

/*
 * 16 page counts, a frontier at hundreds of targets each: one 400-byte
 * line cut this one short of its caveat ("... in 3840 of 4096: not ").
 */
static void test_crossover_16_page_counts(void **state)
{
	struct findings_crossover c = {.ipi = "ipi-linux",
				       .invlpgb = "invlpgb",
				       .cells = 4096,
				       .nfrontier = FINDINGS_PAGE_COUNTS,
				       .linux_slower = 3840,
				       .caveats = ALL_CAVEATS};
	char caveat[CAVEATS_TEXT], want[64], all[MAX_LINES * FLINE_MAX] = "";

	(void)state;
	for (size_t i = 0; i < FINDINGS_PAGE_COUNTS; i++) {
		c.frontier[i].pages = 1ull << i;
		c.frontier[i].lean = i % 3 != 0;
		c.frontier[i].lean_from = 100 + i;
	}
	findings_caveats_text(ALL_CAVEATS, caveat, sizeof(caveat));
	findings_print_crossover(&c, sink, NULL);
	assert_true(nlines > 1);
	for (size_t i = 0; i < nlines; i++) {
		const char *head = i ? "findings: crossover (ipi-linux vs "
				       "invlpgb), continued: "
				     : "findings: crossover (ipi-linux vs "
				       "invlpgb): ";
		const char *rest = lines[i] + strlen(head);

		assert_printable(lines[i], FLINE_MAX);
		assert_memory_equal(lines[i], head, strlen(head));
		/* the caveat whole, before the figures */
		assert_memory_equal(rest, caveat, strlen(caveat));
		assert_memory_equal(rest + strlen(caveat), ": ", 2);
		/* a continuation does not open with a separator */
		assert_true(rest[strlen(caveat) + 2] != ',');
		strcat(all, rest + strlen(caveat) + 2);
		strcat(all, "|");
	}
	/* every figure is there, none cut in two */
	for (size_t i = 0; i < FINDINGS_PAGE_COUNTS; i++) {
		if (c.frontier[i].lean)
			snprintf(want, sizeof(want), "%llu page%s: %zu",
				 1ull << i, i ? "s" : "", 100 + i);
		else
			snprintf(want, sizeof(want), "%llu page%s: none",
				 1ull << i, i ? "s" : "");
		assert_non_null(strstr(all, want));
	}
	assert_non_null(strstr(all, "picks the slower way in 3840 of 4096|"));
	assert_null(strstr(lines[nlines - 1] + 1, "|"));
}

/* A short finding is one line, with its caveat first. */
static void test_one_line(void **state)
{
	struct findings_loss f = {.per_page = {.have = true, .pct = 86},
				  .batch512 = {.have = true,
					       .has_ci = true,
					       .pct = 3,
					       .lo = -1,
					       .hi = 7},
				  .caveats = FC_TCG | FC_NOT_CONCURRENT};

	(void)state;
	findings_print_loss(&f, sink, NULL);
	assert_int_equal(nlines, 1);
	assert_string_equal(lines[0],
			    "findings: worker loss during page-out (seed 001: "
			    "about 53% per-page, about 0 batched): not a "
			    "hardware answer here: QEMU TCG, CPUs take turns: "
			    "per-page 86% (no interval), batch 512 3% [-1, 7]");
}

/* Exact counts carry no caveat; no data says why. */
static void test_no_caveat(void **state)
{
	struct findings_irqs q = {.have = true,
				  .targets = 3,
				  .per_page = 786432,
				  .batch512 = 1536,
				  .seed_per_page = 786432,
				  .seed_batch512 = 1536,
				  .ratio_x100 = 51200};
	struct findings_throughput t = {.ipi = "ipi-range",
					.no_data = "no invlpgb records"};

	(void)state;
	findings_print_irqs(&q, sink, NULL);
	findings_print_throughput(&t, sink, NULL);
	assert_int_equal(nlines, 2);
	assert_string_equal(lines[0],
			    "findings: interrupts per GiB paged out: per-page "
			    "786432, batch 512 1536: 512.00x fewer (the "
			    "seed's arithmetic for 3 targets: 786432 and "
			    "1536; exact counts)");
	assert_string_equal(lines[1], "findings: flushloop invlpgb / ipi-range "
				      "loops per second: no data: no invlpgb "
				      "records");
}

/* A piece longer than a whole line is cut to it, and says so. */
static void test_piece_too_long(void **state)
{
	char big[2 * FLINE_MAX];
	struct fline l;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	fline_begin(&l, sink, NULL, FC_TCG, "findings: test");
	fline_add(&l, "short");
	fline_add(&l, "%s", big);
	assert_true(l.cut);
	assert_int_equal(fline_end(&l), 2);
	assert_string_equal(lines[0], "findings: test: not a hardware answer "
				      "here: QEMU TCG: short");
	assert_int_equal(strlen(lines[1]), FLINE_MAX - 1);
	assert_non_null(strstr(lines[1], "continued: not a hardware answer "
					 "here: QEMU TCG: xxx"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_crossover_16_page_counts, reset),
		cmocka_unit_test_setup(test_one_line, reset),
		cmocka_unit_test_setup(test_no_caveat, reset),
		cmocka_unit_test_setup(test_piece_too_long, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
