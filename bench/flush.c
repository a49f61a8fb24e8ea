// SPDX-License-Identifier: MIT
/*
 * One flush API for every experiment (bench/flush.h). The IPI strategies
 * post a cross-call to every target, flush this CPU meanwhile, and wait
 * for every acknowledgement; INVLPGB needs no IPI at all.
 */
#include "bench/flush.h"
#include "kernel/cpu.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "mm/layout.h"
#include "smp/apic.h"
#include "smp/percpu.h"

/* selftest=nmi: how long the responder waits to see its NMI taken. */
#define NMI_TAKEN_US 1000000

void flush_page(void *va)
{
	invlpg(va);
}

void invlpg_range(void *range)
{
	const struct flush_range *r = range;

	for (uint64_t i = 0; i < r->pages; i++)
		invlpg((const void *)(r->va + i * PAGE_SIZE));
}

void flush_nonglobal(void *unused)
{
	(void)unused;
	cr3_reload();
}

/* A CR3 reload keeps global entries; toggling CR4.PGE drops them all. */
void flush_with_global(void *unused)
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
 * selftest=nmi: the next IPI round's first responder to finish sends the
 * initiator an NMI, and acknowledges only once it was taken, so that it
 * lands inside the timed flush. An NMI is delivered whatever RFLAGS.IF
 * (the initiator waits with interrupts off). Only the initiator reads it.
 */
static bool nmi_armed;

void flush_inject_nmi(bool on)
{
	nmi_armed = on;
}

/*
 * A round whose responders do more than the plan's flush: the busy-wait
 * of delay_handler=, then (in the cross-call code) the acknowledgement
 * the initiator waits for; or selftest=nmi's NMI. The responders'
 * argument: it lives on the initiator's stack for the round.
 */
struct wrapped_round {
	xcall_fn fn; /* the plan's remote function */
	void *arg;   /* its argument in this round */
	uint64_t delay;
	bool nmi;
	unsigned nmi_target;
	volatile bool nmi_sent;
};

static void send_nmi_once(struct wrapped_round *w)
{
	uint64_t before, t0;

	if (__atomic_exchange_n(&w->nmi_sent, true, __ATOMIC_ACQ_REL))
		return;
	before = nmis_taken(w->nmi_target);
	apic_send(cpu_apic_id[w->nmi_target], ICR_NMI);
	t0 = rdtsc();
	while (nmis_taken(w->nmi_target) == before &&
	       rdtsc() - t0 < us_to_cycles(NMI_TAKEN_US))
		cpu_relax();
}

static void flush_wrapped(void *round)
{
	struct wrapped_round *w = round;
	uint64_t t0;

	w->fn(w->arg);
	t0 = rdtsc();
	while (rdtsc() - t0 < w->delay)
		cpu_relax();
	if (w->nmi)
		send_nmi_once(w);
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
	struct invlpgb_req range = {.va = r->va,
				    .pages = r->pages,
				    .stride = r->stride,
				    .include_global = r->global};
	int err;

	err = flush_encode_invlpgb(p->how, &range, &caps, p->insn, p->cap,
				   &p->ninsn);
	if (err || !p->ninsn)
		return err;
	inject(p);
	return INVLPGB_OK;
}

/* What the responders and the initiator run, for an IPI strategy. */
static void choose_fns(struct flush_plan *p)
{
	xcall_fn full = p->req.global ? flush_with_global : flush_nonglobal;

	switch (p->how) {
	case FLUSH_IPI_PAGE:
		p->remote = p->self = flush_page;
		break;
	case FLUSH_IPI_FULL:
		p->remote = p->self = full;
		break;
	case FLUSH_IPI_REMOTE_FULL:
		p->remote = full;
		p->self = invlpg_range;
		break;
	case FLUSH_IPI_LOCAL_ONLY:
		p->remote = flush_nothing;
		p->self = invlpg_range;
		break;
	default: /* FLUSH_IPI_RANGE */
		p->remote = p->self = invlpg_range;
		break;
	}
	/* delay_handler= (not for flushloop's many initiators) */
	p->delayed = p->req.delay_cycles && !p->req.concurrent &&
		     p->remote != flush_nothing;
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
	p->how = flush_resolve(req->how, req->pages);
	if (flush_is_invlpgb(p->how))
		return prepare_invlpgb(p);
	choose_fns(p);
	return INVLPGB_OK;
}

/*
 * The targets run remote(remote_arg), this CPU the plan's self(arg)
 * meanwhile; then every target must answer.
 */
static bool post_and_wait(const struct flush_plan *p, xcall_fn remote,
			  void *remote_arg, void *arg)
{
	if (p->req.concurrent) {
		p->self(arg);
		return on_cpumask_shared(p->req.targets, remote, remote_arg);
	}
	on_cpumask_async(p->req.targets, remote, remote_arg, p->req.mode);
	p->self(arg);
	return xcall_wait(p->req.targets, FLUSH_WAIT_US);
}

/*
 * One IPI round: the plan's remote function on the targets, its self
 * function here meanwhile, then every acknowledgement.
 */
static bool ipi_round(const struct flush_plan *p, void *arg)
{
	struct wrapped_round w;

	/* The measured path: nothing built for the other rounds' wrapper. */
	if (!p->delayed && !nmi_armed)
		return post_and_wait(p, p->remote, arg, arg);
	w = (struct wrapped_round){.fn = p->remote, .arg = arg};
	if (p->delayed)
		w.delay = p->req.delay_cycles;
	if (nmi_armed) {
		nmi_armed = false;
		w.nmi = true;
		w.nmi_target = this_cpu();
	}
	return post_and_wait(p, flush_wrapped, &w, arg);
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
	bool ok = true;

	if (flush_is_invlpgb(p->how))
		return run_invlpgb(p);
	if (p->how != FLUSH_IPI_PAGE)
		return ipi_round(p, &p->range);
	for (uint64_t i = 0; i < p->range.pages; i++)
		ok &= ipi_round(p, (void *)(p->range.va + i * PAGE_SIZE));
	return ok;
}

bool flush_everywhere(const struct cpumask *targets, bool global)
{
	struct flush_req req = {
		.how = FLUSH_IPI_FULL, .targets = targets, .global = global};
	struct flush_plan p;

	flush_prepare(&p, &req, NULL, 0);
	return flush_run(&p);
}
