// SPDX-License-Identifier: MIT
/*
 * The vocabulary record (bench/vocabulary.h): every strategy the kernel
 * can run, with its role and flush kind as its records will carry them,
 * and the numbers the host tools would otherwise restate.
 */
#include "bench/ceiling.h"
#include "bench/flushloop.h"
#include "bench/params.h"
#include "bench/reclaim_pass.h"
#include "bench/shootdown_sample.h"
#include "bench/vocabulary.h"
#include "kernel/report.h"
#include "mm/pt.h"

static void entry(struct json *j, const char *bench, struct result_what w)
{
	json_begin_object(j, NULL);
	json_str(j, "bench", bench);
	json_str(j, "strategy", w.strategy);
	json_str(j, "role", result_role_name(w.role));
	json_str(j, "flush", flush_kind_name(w.flush));
}

static void shootdown_entries(struct json *j)
{
	for (int s = 0; s < S_COUNT; s++) {
		const char *global = shootdown_global_name((enum strategy)s);

		entry(j, "shootdown", sd_variant_what(s, false));
		if (global)
			json_str(j, "global", global);
		json_end_object(j);
		if (!global)
			continue;
		entry(j, "shootdown", sd_variant_what(s, true));
		json_str(j, "variant_of", strategy_names[s]);
		json_end_object(j);
	}
}

/* Reclaim's, one per strategy and batch: a name may run in two roles. */
static void reclaim_entry(struct json *j, const struct rc_kind *k)
{
	entry(j, "reclaim",
	      (struct result_what){k->name, k->role,
				   rc_uses_ipis(k) ? FK_IPI : FK_INVLPGB});
	json_u64(j, "batch", k->batch);
	json_end_object(j);
}

void vocabulary_record(void)
{
	/* static: about 2 KB of names, more than a stack frame's share */
	static char buf[4096];
	uint32_t pages[PARAM_LIST_MAX];
	size_t n, np = param_pages_default(pages, PARAM_LIST_MAX);
	const struct rc_kind *k = rc_kinds(&n);
	struct record r;

	record_begin(&r, buf, sizeof(buf), "vocabulary");
	json_u64(&r.j, "linux_ceiling", CEILING_LINUX);
	json_u64(&r.j, "pmd_pages", PMD_PAGES);
	json_begin_array(&r.j, "pages");
	for (size_t i = 0; i < np; i++)
		json_u64(&r.j, NULL, pages[i]);
	json_end_array(&r.j);
	json_begin_array(&r.j, "strategies");
	shootdown_entries(&r.j);
	for (size_t i = 0; i < n; i++)
		reclaim_entry(&r.j, &k[i]);
	reclaim_entry(&r.j, rc_control_kind());
	for (int s = 0; s <= FL_CONTROL; s++) {
		entry(&r.j, "flushloop", fl_strategy_what(s));
		json_end_object(&r.j);
	}
	json_end_array(&r.j);
	record_end(&r);
}
