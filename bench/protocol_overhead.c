// SPDX-License-Identifier: MIT
/* The protocol overhead (bench/protocol_overhead.h). */
#include "bench/protocol_overhead.h"
#include "bench/stats.h"
#include "kernel/report.h"
#include "lib/string.h"

/*
 * The protocol overhead: what the harness adds to a raw IPI round trip
 * when it flushes one page on one responder. Both ends are the p50 of a
 * record towards the same CPU: the one of a distance class (the records'
 * `distance`), the nearest class that has both.
 */
#define OVERHEAD_CLASSES 8
static struct {
	const char *distance;
	uint64_t ipi, range; /* ipi-roundtrip, ipi-range 1 page 1 target */
} overhead_ends[OVERHEAD_CLASSES];

void protocol_overhead_note(const struct result *r)
{
	bool ipi = !strcmp(r->bench, "primitives") &&
		   !strcmp(r->strategy, "ipi-roundtrip");
	bool range = !strcmp(r->bench, "shootdown") &&
		     !strcmp(r->strategy, "ipi-range") && r->pages == 1 &&
		     r->targets == 1 && r->ipi_mode &&
		     !strcmp(r->ipi_mode, "unicast") && !r->emulated;

	if (!r->distance || !r->n || (!ipi && !range))
		return;
	for (int i = 0; i < OVERHEAD_CLASSES; i++) {
		if (overhead_ends[i].distance &&
		    strcmp(overhead_ends[i].distance, r->distance))
			continue;
		overhead_ends[i].distance = r->distance;
		if (ipi && !overhead_ends[i].ipi)
			overhead_ends[i].ipi = r->st.p50;
		if (range && !overhead_ends[i].range)
			overhead_ends[i].range = r->st.p50;
		return;
	}
}

/* The INFO line and the summary record's protocol_overhead, if measured. */
void protocol_overhead_report(void)
{
	for (int i = 0; i < OVERHEAD_CLASSES; i++) {
		uint64_t x100, ipi = overhead_ends[i].ipi;
		uint64_t range = overhead_ends[i].range;

		if (!ipi || !range)
			continue;
		x100 = stats_ratio_x100(range, ipi);
		report_info("shootdown: protocol overhead: ipi-range 1 page 1 "
			    "target p50 / ipi-roundtrip p50 = %llu.%02llu "
			    "(%llu / %llu cycles, %s)",
			    (unsigned long long)(x100 / 100),
			    (unsigned long long)(x100 % 100),
			    (unsigned long long)range, (unsigned long long)ipi,
			    overhead_ends[i].distance);
		report_summary_x100("protocol_overhead", x100);
		return;
	}
}
