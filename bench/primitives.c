// SPDX-License-Identifier: MIT
/*
 * primitives: the cost of each building block, on the same CPUs the
 * shootdown uses: TSC read overhead (subtracted from everything else),
 * local INVLPG, CR3 reload, INVPCID, INVLPGB + TLBSYNC, an IPI round trip
 * with an empty handler, a cross-call round trip, and a cache-line
 * ping-pong round trip (the floor under any acknowledgement).
 */
#include "bench/bench.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/printf.h"
#include "kernel/report.h"
#include "kernel/string.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "mm/invlpgb.h"
#include "mm/vm.h"
#include "smp/percpu.h"
#include "smp/smp.h"

#define PRIM_VA		    (EXPERIMENT_BASE + (8ull << 30))
#define PINGPONG_TIMEOUT_US 1000000

static volatile uint64_t *const prim = (volatile uint64_t *)PRIM_VA;
static const char *distance; /* of the remote CPU, for the records */

/* raw: the timer's own cost, from which nothing is subtracted. */
static void emit_as(const char *strategy, uint64_t *s, unsigned n,
		    unsigned targets, uint64_t cpu, bool raw)
{
	struct result_field f[1] = {{"cpu", cpu, false}};
	struct result r = {.bench = "primitives",
			   .strategy = strategy,
			   .raw = raw,
			   .targets = targets,
			   .pages = targets ? 0 : 1,
			   .samples = s,
			   .n = n,
			   .fields = f,
			   .nfields = 1};

	r.distance = targets ? distance : NULL;
	result_emit(&r);
	kprintf("  %-20s cpu %3llu %-12s p50 %7llu cyc %7llu ns p99 %7llu\n",
		strategy, (unsigned long long)cpu,
		targets ? distance : "(local)", (unsigned long long)r.st.p50,
		(unsigned long long)cycles_to_ns(r.st.p50, tsc_freq.khz),
		(unsigned long long)r.st.p99);
}

static void emit(const char *strategy, uint64_t *s, unsigned n,
		 unsigned targets, uint64_t cpu)
{
	emit_as(strategy, s, n, targets, cpu, false);
}

typedef void (*local_op)(void);

static void op_invlpg(void)
{
	invlpg((const void *)prim);
}

static void op_cr3(void)
{
	cr3_reload();
}

static void op_invpcid(void)
{
	invpcid(INVPCID_ADDR, HARNESS_PCID, PRIM_VA);
}

/* Times op with the test page in the TLB before each sample. */
static void time_local(const char *name, local_op op, uint64_t *s, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t t0, t1;

		(void)*prim;
		t0 = rdtsc_ordered();
		op();
		t1 = rdtsc_ordered();
		s[i] = t1 - t0;
	}
	emit(name, s, n, 0, this_cpu());
}

static void time_invlpgb(uint64_t *s, unsigned n)
{
	struct invlpgb_caps caps = {.max_pages = cpu_info.invlpgb_max_pages,
				    .pcide = cpu_info.pcid};
	char name[32];

	for (uint32_t pages = 1; pages <= caps.max_pages; pages *= 2) {
		struct invlpgb_req req = {.va = PRIM_VA, .pages = pages};
		struct invlpgb_regs r;

		if (invlpgb_encode(&req, &caps, &r))
			break;
		for (unsigned i = 0; i < n; i++) {
			uint64_t t0 = rdtsc_ordered();

			invlpgb(r.rax, r.ecx, r.edx);
			tlbsync();
			s[i] = rdtsc_ordered() - t0;
		}
		ksnprintf(name, sizeof(name), "invlpgb+tlbsync-%u", pages);
		emit(name, s, n, 0, this_cpu());
	}
}

static void tlb_primitives(uint64_t *s, unsigned n)
{
	time_local("invlpg", op_invlpg, s, n);
	time_local("cr3-reload", op_cr3, s, n);
	if (cpu_info.invpcid && cpu_info.pcid)
		time_local("invpcid-addr", op_invpcid, s, n);
	else
		report_skip("primitives: invpcid", "CPUID.7:EBX[10] (INVPCID) "
						   "or CPUID.1:ECX[17] (PCID) "
						   "is clear");
	if (cpu_info.invlpgb)
		time_invlpgb(s, n);
	else
		report_skip("primitives: invlpgb + tlbsync", "%s",
			    cpu_invlpgb_absent_reason());
}

static void nothing(void *arg)
{
	(void)arg;
}

/* The line both sides spin on; the responder echoes every value. */
static struct {
	volatile uint64_t ping;
	uint64_t pad[7];
	volatile uint64_t pong;
} __attribute__((aligned(CACHELINE))) line;

/* Gives up after PINGPONG_TIMEOUT_US without a new round, not in total. */
static void pingpong_responder(void *arg)
{
	uint64_t rounds = (uint64_t)(uintptr_t)arg, start = rdtsc();
	uint64_t limit = us_to_cycles(PINGPONG_TIMEOUT_US);

	for (uint64_t k = 1; k <= rounds; k++) {
		while (line.ping != k) {
			if (rdtsc() - start > limit)
				return;
			cpu_relax();
		}
		line.pong = k;
		start = rdtsc();
	}
}

static bool time_pingpong(unsigned cpu, uint64_t *s, unsigned n)
{
	struct cpumask one;

	line.ping = line.pong = 0;
	cpumask_zero(&one);
	cpumask_set(cpu, &one);
	on_cpumask_async(&one, pingpong_responder, (void *)(uintptr_t)n,
			 IPI_EACH);
	for (unsigned k = 1; k <= n; k++) {
		uint64_t t0 = rdtsc_ordered();

		line.ping = k;
		while (line.pong != k) {
			if (rdtsc() - t0 > us_to_cycles(PINGPONG_TIMEOUT_US))
				return false;
			cpu_relax();
		}
		s[k - 1] = rdtsc_ordered() - t0;
	}
	return xcall_wait(&one, PINGPONG_TIMEOUT_US);
}

static void remote_primitives(unsigned cpu, uint64_t *s, unsigned n)
{
	bool ok = true;

	for (unsigned i = 0; i < n && ok; i++) {
		uint64_t t0 = rdtsc_ordered();

		ok = ping_cpu(cpu);
		s[i] = rdtsc_ordered() - t0;
	}
	if (ok)
		emit("ipi-roundtrip", s, n, 1, cpu);
	for (unsigned i = 0; i < n && ok; i++) {
		uint64_t t0 = rdtsc_ordered();

		ok = on_cpu(cpu, nothing, NULL);
		s[i] = rdtsc_ordered() - t0;
	}
	if (ok)
		emit("xcall-roundtrip", s, n, 1, cpu);
	if (ok && (ok = time_pingpong(cpu, s, n)))
		emit("cacheline-pingpong", s, n, 1, cpu);
	report_check(ok, "primitives: round trips",
		     "cpu %u (%s), apic id %u stopped answering", cpu, distance,
		     cpu_apic_id[cpu]);
}

void primitives_run(void)
{
	unsigned n = bench_params.samples, far = 0, cpu;
	uint64_t *s = bench_alloc(n);

	if (!s)
		return;
	if (vm_map(PRIM_VA, frame_alloc(PMM_ZERO), PT_4K,
		   PTE_P | PTE_W | pte_nx(), NULL) != PT_OK) {
		report_fail("primitives: setup", "could not map the test page");
		return;
	}
	for (unsigned i = 0; i < n; i++) { /* the TSC's own cost, kept raw */
		uint64_t t0 = rdtsc_ordered();

		s[i] = rdtsc_ordered() - t0;
	}
	kprintf("primitives: on cpu %u (cycles and ns, p50 / p99)\n",
		this_cpu());
	emit_as("tsc-read", s, n, 0, this_cpu(), true);
	tlb_primitives(s, n);
	/* One CPU of every distance class from this one (topology). */
	for (int k = TOPO_SMT_SIBLING; k < TOPO_CLASSES; k++) {
		cpu = smp_cpu_in_class((enum topo_class)k);
		if (!cpu)
			continue;
		distance = topo_class_name((enum topo_class)k);
		remote_primitives(cpu, s, n);
		far++;
	}
	if (!far)
		report_skip("primitives: round trips", "one cpu only");
	bench_free(s, n);
}
