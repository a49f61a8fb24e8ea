// SPDX-License-Identifier: MIT
/* The protocol overhead (bench/protocol_overhead.h). */
#include "bench/protocol_overhead.h"
#include "bench/result.h"
#include "bench/stats.h"
#include "kernel/report.h"
#include "lib/string.h"

void protocol_overhead_note(struct protocol_overhead *po,
			    const struct result *r)
{
	bool ipi = !strcmp(r->bench, "primitives") &&
		   r->role == ROLE_ROUNDTRIP && r->flush == FK_IPI;
	bool range = !strcmp(r->bench, "shootdown") && r->role == ROLE_RANGE &&
		     r->flush == FK_IPI && r->pages == 1 && r->targets == 1 &&
		     r->ipi_mode && !strcmp(r->ipi_mode, "unicast") &&
		     !r->emulated;

	if (!r->distance || !r->n || (!ipi && !range))
		return;
	for (int i = 0; i < PROTOCOL_OVERHEAD_CLASSES; i++) {
		if (po->ends[i].distance &&
		    strcmp(po->ends[i].distance, r->distance))
			continue;
		po->ends[i].distance = r->distance;
		if (ipi && !po->ends[i].ipi)
			po->ends[i].ipi = r->st.p50;
		if (range && !po->ends[i].range)
			po->ends[i].range = r->st.p50;
		return;
	}
}

/* The INFO line and the summary record's protocol_overhead, if measured. */
void protocol_overhead_report(const struct protocol_overhead *po)
{
	for (int i = 0; i < PROTOCOL_OVERHEAD_CLASSES; i++) {
		uint64_t x100, ipi = po->ends[i].ipi;
		uint64_t range = po->ends[i].range;

		if (!ipi || !range)
			continue;
		x100 = stats_ratio_x100(range, ipi);
		report_info("shootdown: protocol overhead: ipi-range 1 page 1 "
			    "target p50 / ipi-roundtrip p50 = %llu.%02llu "
			    "(%llu / %llu cycles, %s)",
			    (unsigned long long)(x100 / 100),
			    (unsigned long long)(x100 % 100),
			    (unsigned long long)range, (unsigned long long)ipi,
			    po->ends[i].distance);
		report_summary_x100("protocol_overhead", x100);
		return;
	}
}
