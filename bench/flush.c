// SPDX-License-Identifier: MIT
/*
 * One flush API for every experiment (bench/flush.h). The IPI strategies
 * post a cross-call to every target, flush this CPU meanwhile, and wait
 * for every acknowledgement; INVLPGB needs no IPI at all.
 */
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

/* A CR3 reload keeps global entries; toggling CR4.PGE drops them all. */
void flush_global(void *unused)
{
	uint64_t cr4 = read_cr4();

	(void)unused;
	write_cr4(cr4 & ~CR4_PGE);
	write_cr4(cr4);
}

void flush_nothing(void *unused)
{
	(void)unused;
}

/*
 * delay_handler=: the responders' flush, then a busy-wait, then (in the
 * cross-call code) the acknowledgement the initiator waits for. Set by
 * flush_run() before it sends the IPIs, which order the store before
 * the handlers run.
 */
static uint64_t responder_delay;

static void delay(void)
{
	uint64_t t0 = rdtsc();

	while (rdtsc() - t0 < responder_delay)
		cpu_relax();
}

static void flush_page_delayed(void *va)
{
	flush_page(va);
	delay();
}

static void flush_range_delayed(void *range)
{
	flush_range(range);
	delay();
}

static void flush_all_delayed(void *unused)
{
	flush_all(unused);
	delay();
}

static void flush_global_delayed(void *unused)
{
	flush_global(unused);
	delay();
}

/* The delayed twin of a responder function, when delay_cycles asks. */
static xcall_fn remote_fn(const struct flush_plan *p, xcall_fn fn)
{
	if (!p->req.delay_cycles || p->req.concurrent)
		return fn;
	responder_delay = p->req.delay_cycles;
	if (fn == flush_page)
		return flush_page_delayed;
	if (fn == flush_range)
		return flush_range_delayed;
	if (fn == flush_all)
		return flush_all_delayed;
	if (fn == flush_global)
		return flush_global_delayed;
	return fn; /* flush_nothing: nothing to delay */
}

/* A PCID other than the one this CPU runs in (CR3[11:0]). */
static uint32_t wrong_pcid(void)
{
	return ((read_cr3() & CR3_PCID_MASK) + 1) & INVLPGB_PCID_MAX;
}

/*
 * The injected bug, done to the registers as a hand-written encoding
 * would have it (the encoder itself refuses e.g. a 2 MiB stride over
 * 4 KiB pages).
 */
static void inject(struct flush_plan *p)
{
	struct invlpgb_regs *last = &p->insn[p->ninsn - 1];

	switch (p->req.bug) {
	case PARAM_BUG_COUNT: /* the last page is left out */
		if (last->ecx & INVLPGB_ECX_COUNT_MASK)
			last->ecx--;
		else
			p->ninsn--;
		break;
	case PARAM_BUG_STRIDE: /* 2 MiB steps over the 4 KiB pages */
		for (size_t i = 0; i < p->ninsn; i++)
			p->insn[i].ecx |= INVLPGB_ECX_2M_STRIDE;
		break;
	case PARAM_BUG_NO_TLBSYNC:
		p->tlbsync = false;
		break;
	case PARAM_BUG_NO_GLOBAL: /* global entries are left alone */
		for (size_t i = 0; i < p->ninsn; i++)
			p->insn[i].rax &= ~INVLPGB_RAX_GLOBAL;
		break;
	case PARAM_BUG_PCID: /* another PCID: CR3's entries are left alone */
		for (size_t i = 0; i < p->ninsn; i++) {
			p->insn[i].rax |= INVLPGB_RAX_PCID;
			p->insn[i].edx |= wrong_pcid()
					  << INVLPGB_EDX_PCID_SHIFT;
		}
		break;
	default:
		break;
	}
}

static int prepare_invlpgb(struct flush_plan *p)
{
	const struct flush_req *r = &p->req;
	struct invlpgb_caps caps = {.max_pages = r->invlpgb_max,
				    .pcide = read_cr4() & CR4_PCIDE};
	struct invlpgb_req req = {.va = r->va,
				  .pages = r->pages,
				  .stride = r->stride,
				  .all_va = p->how == FLUSH_INVLPGB_ALL,
				  .include_global = r->global};
	int err;

	err = invlpgb_encode_range(&req, &caps, p->insn, p->cap, &p->ninsn);
	if (err || !p->ninsn)
		return err;
	inject(p);
	return INVLPGB_OK;
}

int flush_prepare(struct flush_plan *p, const struct flush_req *req,
		  struct invlpgb_regs *insn, size_t cap)
{
	*p = (struct flush_plan){.req = *req,
				 .how = req->how,
				 .range = {req->va, req->pages},
				 .insn = insn,
				 .cap = cap,
				 .tlbsync = true};
	if (p->how == FLUSH_IPI_LINUX)
		p->how = req->pages <= FLUSH_SINGLE_PAGE_CEILING
				 ? FLUSH_IPI_RANGE
				 : FLUSH_IPI_FULL;
	if (p->how == FLUSH_INVLPGB || p->how == FLUSH_INVLPGB_ALL)
		return prepare_invlpgb(p);
	return INVLPGB_OK;
}

/*
 * One IPI round: remote(arg) on the targets, self(arg) here meanwhile,
 * then every acknowledgement.
 */
static bool ipi_round(const struct flush_plan *p, xcall_fn remote,
		      xcall_fn self, void *arg)
{
	remote = remote_fn(p, remote);
	if (p->req.concurrent) {
		self(arg);
		return on_cpumask_shared(p->req.targets, remote, arg);
	}
	on_cpumask_async(p->req.targets, remote, arg, p->req.mode);
	self(arg);
	return xcall_wait(p->req.targets, FLUSH_WAIT_US);
}

static bool run_invlpgb(const struct flush_plan *p)
{
	/*
	 * The PTE stores must be visible before any CPU drops its entry,
	 * or its next walk could cache the old PTE again. Linux clears
	 * PTEs with a locked exchange, which drains the store buffer;
	 * plain stores here need the fence.
	 */
	mfence();
	for (size_t i = 0; i < p->ninsn; i++)
		invlpgb(p->insn[i].rax, p->insn[i].ecx, p->insn[i].edx);
	if (p->tlbsync)
		tlbsync();
	return true;
}

bool flush_run(struct flush_plan *p)
{
	xcall_fn full = p->req.global ? flush_global : flush_all;
	struct flush_range *range = &p->range;
	bool ok = true;

	switch (p->how) {
	case FLUSH_IPI_PAGE:
		for (uint64_t i = 0; i < p->range.pages; i++) {
			void *va = (void *)(p->range.va + i * PAGE_SIZE);

			ok &= ipi_round(p, flush_page, flush_page, va);
		}
		return ok;
	case FLUSH_IPI_RANGE:
		return ipi_round(p, flush_range, flush_range, range);
	case FLUSH_IPI_FULL:
		return ipi_round(p, full, full, NULL);
	case FLUSH_IPI_REMOTE_FULL:
		return ipi_round(p, full, flush_range, range);
	case FLUSH_IPI_LOCAL_ONLY:
		return ipi_round(p, flush_nothing, flush_range, range);
	default:
		return run_invlpgb(p);
	}
}
