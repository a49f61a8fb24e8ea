// SPDX-License-Identifier: MIT
/* What each flush strategy does (bench/flush_how.h): no hardware here. */
#include "bench/flush_how.h"

enum flush_how flush_resolve(enum flush_how how, uint64_t pages)
{
	bool range = pages <= FLUSH_SINGLE_PAGE_CEILING;

	if (how == FLUSH_IPI_LINUX)
		return range ? FLUSH_IPI_RANGE : FLUSH_IPI_FULL;
	if (how == FLUSH_INVLPGB_LINUX)
		return range ? FLUSH_INVLPGB : FLUSH_INVLPGB_ALL;
	return how;
}

bool flush_is_invlpgb(enum flush_how how)
{
	return how == FLUSH_INVLPGB || how == FLUSH_INVLPGB_ALL ||
	       how == FLUSH_INVLPGB_LINUX;
}

int flush_encode_invlpgb(enum flush_how how, const struct invlpgb_req *range,
			 const struct invlpgb_caps *caps,
			 struct invlpgb_regs *out, size_t cap, size_t *n)
{
	struct invlpgb_req req = {.va = range->va,
				  .pages = range->pages,
				  .stride = range->stride,
				  .include_global = range->include_global};

	*n = 0;
	if (!flush_is_invlpgb(how))
		return INVLPGB_ENOTSUP;
	/* The page count decides, as in Linux: not the chunks it takes. */
	req.all_va = flush_resolve(how, range->pages) == FLUSH_INVLPGB_ALL;
	return invlpgb_encode_range(&req, caps, out, cap, n);
}
