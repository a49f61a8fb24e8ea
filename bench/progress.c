// SPDX-License-Identifier: MIT
/*
 * The experiments' text for people and their timeline (bench/progress.h):
 * tables and progress lines, which output=json silences, and tick records.
 */
#include <stdarg.h>
#include "bench/progress.h"
#include "kernel/console.h"
#include "lib/printf.h"
#include "kernel/report.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"

#define PROGRESS_US 3000000

static bool human_text = true; /* output= is not json */

void bench_text(bool on)
{
	human_text = on;
}

void bench_printf(const char *fmt, ...)
{
	va_list ap;

	if (!human_text)
		return;
	va_start(ap, fmt);
	kvprintf(fmt, ap);
	va_end(ap);
}

void bench_progress_begin(struct bench_progress *pr)
{
	pr->start = pr->last_progress = pr->last_tick = rdtsc();
	pr->spoke = false;
}

bool bench_progress_due(const struct bench_progress *pr, uint64_t now,
			uint64_t done, uint64_t total)
{
	if (!total || done > total)
		return false;
	if (!pr->spoke) /* the first line: once a tenth is done */
		return done >= total / 10 + 1;
	return now - pr->last_progress >= us_to_cycles(PROGRESS_US);
}

void bench_progress(struct bench_progress *pr, const char *what, uint64_t done,
		    uint64_t total, const char *detail)
{
	uint64_t now = rdtsc(), elapsed = now - pr->start;
	char eta[24] = "?";

	if (!bench_progress_due(pr, now, done, total))
		return;
	pr->last_progress = now;
	pr->spoke = true;
	/* cycles per unit times units left: no 64-bit overflow */
	if (done)
		ksnprintf(eta, sizeof(eta), "%llu",
			  (unsigned long long)(tsc_to_ns(elapsed / done *
							 (total - done)) /
					       1000000000));
	bench_printf("%s: %llu%%%s%s%s, eta %s s\n", what,
		     (unsigned long long)(done * 100 / total),
		     detail ? " (" : "", detail ? detail : "",
		     detail ? ")" : "", eta);
}

bool bench_tick_begin(struct bench_progress *pr, struct record *rec, char *buf,
		      size_t cap, const char *bench, const char *strategy,
		      unsigned interval_ms)
{
	uint64_t now = rdtsc();

	if (now - pr->last_tick < us_to_cycles(interval_ms * 1000ull))
		return false;
	pr->last_tick = now;
	record_begin(rec, buf, cap, "tick");
	json_str(&rec->j, "bench", bench);
	json_u64(&rec->j, "t_ms", tsc_to_ns(now - pr->start) / 1000000);
	json_str(&rec->j, "strategy", strategy);
	return true;
}
