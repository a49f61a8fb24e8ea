// SPDX-License-Identifier: MIT
/*
 * The INVLPGB software model, for CI only and only when asked
 * (invlpgb=emulate) on a CPU without INVLPGB: the #UD that 0F 01 FE
 * (INVLPGB) and 0F 01 FF (TLBSYNC) raise is caught and the instruction is
 * carried out as the AMD APM defines it, no more leniently. Its purpose is
 * to prove the INVLPGB code paths and their encodings with the experiments'
 * verifiers under QEMU; its timings mean nothing, and every record made
 * with it says "emulated": true. docs/mechanics.md says what it checks.
 *
 * INVLPGB: rAX, ECX and EDX are decoded by invlpgb_decode() (mm/invlpgb.c)
 * against what this CPU allows: INVLPGB_EMUL_MAX_PAGES pages (the CPUID
 * limit the harness is told), CR4.PCIDE and EFER.SVME as they are. An
 * encoding the hardware would reject or carry out otherwise than written
 * is refused: a FAIL line (the first of each kind; all are counted), and
 * nothing is invalidated, as after the #GP the hardware raises for most of
 * them. An accepted one is queued on its CPU and NOT carried out yet.
 *
 * TLBSYNC: carries out every INVLPGB this CPU queued, on every CPU (this
 * one included), and returns once all have. So a missing TLBSYNC leaves
 * every entry cached: the hardware may complete an INVLPGB any time before
 * its TLBSYNC, and the model takes the latest. Only when more than
 * EMUL_QUEUE are in flight does it complete the oldest early (the hardware
 * would stall; it could have completed it long before).
 *
 * Carrying one out, on each CPU:
 *  - ASID: on bare metal the host's entries are ASID 0; an ASID-valid
 *    request for another ASID (SVM only) has nothing of the host's to drop.
 *  - PCID: with PCID-valid, only that PCID's non-global entries (global
 *    ones belong to every PCID and follow include-global): another PCID
 *    than CR3's leaves the harness's non-global entries alone. It runs in
 *    one PCID, so no other PCID holds entries of the experiments'
 *    addresses.
 *  - VA-valid clear: every non-global entry (CR3 reload), and with
 *    include-global every entry (CR4.PGE toggled; this also drops the
 *    current PCID's entries when another PCID was named: no instruction
 *    drops global entries alone).
 *  - VA-valid: the pages at va + i x stride (4 KiB or 2 MiB), i = 0 ..
 *    count. Each is dropped with INVLPG at its address, which drops
 *    whatever entry maps that address: the real-page-size rule, so a 2 MiB
 *    stride over 4 KiB mappings leaves the 511 pages after each address
 *    cached, as on the hardware. Without include-global, an address whose
 *    page is global (the G bit of its current leaf entry) is left alone.
 *  - final-only: the hardware then keeps the paging-structure caches;
 *    INVLPG drops them too, so the model drops more. TCG caches no
 *    paging structures, so there this changes nothing.
 *  - include-nested: nested (guest-physical) translations exist only with
 *    SVM guests; the harness has none.
 */
#include "bench/flush.h"
#include "bench/invlpgb_emul.h"
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/trap.h"
#include "kernel/x86.h"
#include "mm/invlpgb.h"
#include "mm/vm.h"
#include "smp/percpu.h"
#include "smp/smp.h"

#define EMUL_QUEUE 64 /* in flight per CPU: a 512-page flush at 8 a piece */
#define EMUL_ERRS  16 /* -invlpgb_err values that are counted apart */

struct queue {
	uint32_t head, n;
	struct invlpgb_req op[EMUL_QUEUE];
};

_Static_assert(sizeof(struct queue) <= PAGE_SIZE, "a queue is one frame");

static struct queue *queues[MAX_CPUS]; /* one frame each, online CPUs */
static volatile uint64_t synced, early;
static volatile uint64_t refused[EMUL_ERRS];

/* G bit of the leaf entry mapping va in the current tables (no locks). */
static bool leaf_global(uint64_t va)
{
	uint64_t e = read_cr3();

	for (int shift = 39; shift >= 12; shift -= 9) {
		const uint64_t *t = phys_to_virt(e & PTE_ADDR_MASK);

		e = __atomic_load_n(&t[(va >> shift) & (PT_ENTRIES - 1)],
				    __ATOMIC_RELAXED);
		if (!(e & PTE_P))
			return false;
		if (shift == 12 || (shift <= 30 && (e & PTE_PS)))
			return e & PTE_G;
	}
	return false;
}

static uint64_t step_bytes(enum invlpgb_size s)
{
	return s == INVLPGB_2M ? LARGE_PAGE_SIZE : PAGE_SIZE;
}

/*
 * What one INVLPGB does to this CPU's TLB. The harness runs in one PCID
 * (CR3's), so only that PCID's entries and global ones exist for the
 * experiments' addresses.
 */
static void carry_out(const struct invlpgb_req *r)
{
	uint16_t cur =
		(read_cr4() & CR4_PCIDE) ? read_cr3() & CR3_PCID_MASK : 0;
	bool mine = !r->pcid_valid || r->pcid == cur;

	if (!r->all_asids && r->asid != 0)
		return; /* a guest's entries: none here */
	if (r->all_va) {
		/*
		 * Global entries cannot be dropped alone: with another PCID
		 * and include-global this drops this PCID's entries too.
		 */
		if (r->include_global)
			flush_with_global(NULL); /* every PCID's entries */
		else if (mine)
			cr3_reload();
		return;
	}
	for (uint32_t i = 0; i < r->pages; i++) {
		uint64_t va = r->va + i * step_bytes(r->stride);

		/* A global entry belongs to every PCID. */
		if (leaf_global(va) ? r->include_global : mine)
			invlpg((const void *)va);
	}
}

/* Cross-call: what a list of INVLPGBs does to this CPU's TLB. */
static void carry_out_queue(void *arg)
{
	const struct queue *q = arg;

	for (uint32_t i = 0; i < q->n; i++)
		carry_out(&q->op[(q->head + i) % EMUL_QUEUE]);
}

static void carry_out_one(void *arg)
{
	carry_out(arg);
}

/*
 * fn(arg) here and on every other CPU. Several CPUs may do this at once
 * (flushloop): the cross-calls lock each target's mailbox, and interrupts
 * are turned on while waiting so that this CPU answers the others.
 */
static void everywhere(xcall_fn fn, void *arg, const struct trap_frame *f)
{
	struct cpumask others;

	fn(arg);
	cpus_others(&others);
	irq_enable();
	on_cpumask_shared(&others, fn, arg);
	if (!(f->rflags & (1u << 9)))
		irq_disable();
}

static void refuse(const struct trap_frame *f, int err)
{
	unsigned k = (unsigned)-err < EMUL_ERRS ? (unsigned)-err : 0;

	if (__atomic_fetch_add(&refused[k], 1, __ATOMIC_RELAXED))
		return; /* said once: counted from now on */
	report_fail("invlpgb model: encoding refused",
		    "cpu %u at rip %#llx: rAX %#llx, ECX %#x, EDX %#x: %s",
		    this_cpu(), (unsigned long long)f->rip,
		    (unsigned long long)f->rax, (unsigned)f->rcx,
		    (unsigned)f->rdx, invlpgb_strerror(err));
}

static void do_invlpgb(struct trap_frame *f, struct queue *q)
{
	struct invlpgb_regs in = {f->rax, (uint32_t)f->rcx, (uint32_t)f->rdx};
	struct invlpgb_caps caps = {
		.max_pages = INVLPGB_EMUL_MAX_PAGES,
		.pcide = read_cr4() & CR4_PCIDE,
		.svm = rdmsr(MSR_EFER) & EFER_SVME,
	};
	struct invlpgb_req r;
	int err = invlpgb_decode(&in, &caps, &r);

	if (err) {
		refuse(f, err);
		return;
	}
	if (q->n == EMUL_QUEUE) {
		everywhere(carry_out_one, &q->op[q->head], f);
		q->head = (q->head + 1) % EMUL_QUEUE;
		q->n--;
		__atomic_fetch_add(&early, 1, __ATOMIC_RELAXED);
	}
	q->op[(q->head + q->n) % EMUL_QUEUE] = r;
	q->n++;
}

static void do_tlbsync(struct trap_frame *f, struct queue *q)
{
	if (!q->n)
		return; /* nothing in flight: nothing to wait for */
	everywhere(carry_out_queue, q, f);
	__atomic_fetch_add(&synced, q->n, __ATOMIC_RELAXED);
	q->head = 0;
	q->n = 0;
}

static void on_ud(struct trap_frame *f)
{
	const uint8_t *insn = (const uint8_t *)f->rip;
	struct queue *q = queues[this_cpu()];

	if (insn[0] != 0x0f || insn[1] != 0x01 ||
	    (insn[2] != 0xfe && insn[2] != 0xff) || !q) {
		fault_report(f);
	}
	if (insn[2] == 0xfe)
		do_invlpgb(f, q);
	else
		do_tlbsync(f, q);
	f->rip += 3;
}

bool invlpgb_emul_enable(void)
{
	unsigned cpu;

	if (cpu_info.invlpgb)
		return false; /* the real thing is there: never emulate it */
	for_each_cpu(cpu, &cpus_online) {
		uint64_t pa = queues[cpu] ? 0 : frame_alloc(0);

		if (queues[cpu])
			continue;
		if (!pa) {
			report_fail("invlpgb model", "out of memory for the "
						     "queues");
			return false;
		}
		queues[cpu] = phys_to_virt(pa);
		queues[cpu]->head = queues[cpu]->n = 0;
	}
	trap_set_handler(VEC_UD, on_ud);
	return true;
}

void invlpgb_emul_report(const char *during)
{
	uint64_t pending = 0, nref = 0;
	unsigned cpu;

	for_each_cpu(cpu, &cpus_online)
		pending += queues[cpu] ? queues[cpu]->n : 0;
	for (unsigned k = 0; k < EMUL_ERRS; k++) {
		nref += refused[k];
		refused[k] = 0;
	}
	report_info("invlpgb model%s%s%s: %llu INVLPGB carried out at a "
		    "TLBSYNC, %llu early (queue full), %llu never (no TLBSYNC "
		    "came), %llu refused",
		    during ? " (" : "", during ? during : "", during ? ")" : "",
		    (unsigned long long)synced, (unsigned long long)early,
		    (unsigned long long)pending, (unsigned long long)nref);
	synced = 0;
	early = 0;
}

void invlpgb_emul_disable(void)
{
	unsigned cpu;

	trap_set_handler(VEC_UD, NULL);
	invlpgb_emul_report(NULL);
	for_each_cpu(cpu, &cpus_online)
		if (queues[cpu])
			queues[cpu]->head = queues[cpu]->n = 0;
}
