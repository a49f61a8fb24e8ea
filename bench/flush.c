// SPDX-License-Identifier: MIT
#include "bench/flush.h"
#include "kernel/x86.h"
#include "mm/layout.h"

void flush_page(void *va)
{
	invlpg(va);
}

void flush_range(void *range)
{
	const struct flush_range *r = range;

	for (uint64_t i = 0; i < r->pages; i++)
		invlpg((const void *)(r->va + i * PAGE_SIZE));
}

void flush_all(void *unused)
{
	(void)unused;
	cr3_reload();
}
