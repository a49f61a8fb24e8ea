// SPDX-License-Identifier: MIT
/*
 * The batch means behind a loss's interval, as a timeline record carries
 * them (docs/records.md, "timeline"): the harness's reclaim passes and the
 * Linux side's page-out (linux/pageout_emit.c) write them alike.
 */
#include "bench/rc_timeline.h"
#include "lib/json.h"

void rc_tl_loss_json(struct json *j, const struct rc_tl_loss *d)
{
	const char *why = rc_tl_no_interval_why(d);

	json_u64(j, "loss_blocks", d->blocks);
	json_u64(j, "loss_effective_bins", d->effective_bins);
	json_begin_array(j, "loss_block_bins");
	json_u64(j, NULL, d->block_bins[0]);
	json_u64(j, NULL, d->block_bins[1]);
	json_end_array(j);
	json_begin_array(j, "loss_rho_x1000");
	json_i64(j, NULL, d->rho_x1000[0]);
	json_i64(j, NULL, d->rho_x1000[1]);
	json_end_array(j);
	if (why)
		json_str(j, "loss_no_interval", why);
}
