// SPDX-License-Identifier: MIT
/*
 * In-guest checks of the memory code (names start "mm:"). The remap checks
 * are the stale-translation verifier in miniature: a changed PTE is seen
 * after INVLPG, and without it the old frame is still read (the negative
 * control, which proves the check can see staleness at all).
 */
#include "kernel/cpu.h"
#include "kernel/report.h"
#include "kernel/trap.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "lib/printf.h"
#include "mm/mm_selftest.h"
#include "mm/pagefault.h"
#include "mm/vm.h"

#define TEST_VA	    EXPERIMENT_BASE
#define PATTERN_A   0xa11ce0000000000aull
#define PATTERN_B   0xb0b000000000000bull
#define CYCLE_PAGES 64

extern char __text_start[], __rodata_start[], __data_start[],
	boot_stack_guard[];

static volatile uint64_t *const test_word = (volatile uint64_t *)TEST_VA;
static uint64_t frame_a, frame_b;

static uint64_t data_flags(void)
{
	return PTE_P | PTE_W | pte_nx(); /* not global: CR3 reloads flush it */
}

static bool remap(uint64_t va, uint64_t pa)
{
	uint64_t old;

	return vm_unmap(va, PT_4K, &old) == PT_OK &&
	       vm_map(va, pa, PT_4K, data_flags(), NULL) == PT_OK;
}

static void check_map_rw(void)
{
	frame_a = frame_alloc(PMM_ZERO);
	frame_b = frame_alloc(PMM_ZERO);
	if (!frame_a || !frame_b ||
	    vm_map(TEST_VA, frame_a, PT_4K, data_flags(), NULL) != PT_OK) {
		report_fail("mm: map, write, read", "could not map a frame");
		return;
	}
	*test_word = PATTERN_A;
	*(volatile uint64_t *)phys_to_virt(frame_b) = PATTERN_B;
	report_check(*(volatile uint64_t *)phys_to_virt(frame_a) == PATTERN_A,
		     "mm: map, write, read",
		     "a write through the new mapping did not reach its frame");
}

/*
 * Remap to B: without INVLPG a CPU that caches translations still reads A
 * (the negative control); after INVLPG it must read B. Where the control
 * reads B already, the CPU re-walked the tables (a hypervisor that hides
 * its TLB, say) and B after INVLPG proves nothing: both SKIP.
 */
static void check_remap(void)
{
	struct report_control ctl;
	uint64_t stale, fresh;
	char why[64];

	(void)*test_word; /* the TLB now holds TEST_VA -> frame A */
	if (!remap(TEST_VA, frame_b)) {
		report_fail("mm: remap + invlpg", "remap failed");
		return;
	}
	stale = *test_word;
	invlpg((void *)TEST_VA);
	fresh = *test_word;
	report_control_init(&ctl, "mm: negative control");
	if (stale == PATTERN_A)
		report_control_shown(&ctl, "stale translation seen without "
					   "INVLPG");
	else
		report_control_missed(&ctl, "this CPU re-walked the tables "
					    "without INVLPG");
	ksnprintf(why, sizeof(why), "read %llx, expected %llx",
		  (unsigned long long)fresh, (unsigned long long)PATTERN_B);
	report_gated(&ctl, fresh != PATTERN_B, "reads of another frame", why,
		     "mm: remap + invlpg reads the new frame");
}

/* A _safe access at addr must raise #PF with exactly `want` error bits. */
static void check_fault(const char *name, uint64_t addr, bool write,
			uint64_t want)
{
	struct pf_record rec = {0};
	uint64_t val = 0;
	unsigned n;
	int vec;

	pf_expect(addr, addr + 1, PF_SKIP, NULL);
	if (write) {
		/* Write back what is there, so a missing fault harms nothing. */
		vec = write_u8_safe((void *)addr, *(volatile uint8_t *)addr);
	} else {
		vec = read_u64_safe((const void *)addr, &val);
	}
	n = pf_expect_end(&rec);
	report_check(vec == VEC_PF && n == 1 && rec.addr == addr &&
			     (rec.error & (PF_ERR_P | PF_ERR_W)) == want,
		     name, "vector %d, %u faults, address %llx, error %llx",
		     vec, n, (unsigned long long)rec.addr,
		     (unsigned long long)rec.error);
}

static void check_protection(void)
{
	struct pt_walk w;

	check_fault("mm: kernel text is read-only", (uint64_t)__text_start + 64,
		    true, PF_ERR_P | PF_ERR_W);
	check_fault("mm: kernel rodata is read-only", (uint64_t)__rodata_start,
		    true, PF_ERR_P | PF_ERR_W);
	check_fault("mm: page 0 is unmapped", 0, false, 0);
	check_fault("mm: guard page under the boot stack",
		    (uint64_t)boot_stack_guard + 8, false, 0);
	vm_walk((uint64_t)__data_start, &w);
	if (!cpu_info.nx)
		report_skip("mm: kernel data is not executable",
			    "CPUID 8000_0001 EDX[20] (NX) is clear");
	else
		report_check(w.mapped && !w.exec && w.writable,
			     "mm: kernel data is not executable",
			     "walk says mapped %d exec %d", w.mapped, w.exec);
}

/* The page a resumed fault gets mapped to (see check_fault_resume). */
#define RESUME_VA (TEST_VA + 0x100000ull - PAGE_SIZE)

static bool map_on_fault(uint64_t addr, uint64_t error)
{
	(void)error;
	return vm_map(addr & ~(PAGE_SIZE - 1), frame_b, PT_4K, data_flags(),
		      NULL) == PT_OK;
}

/*
 * A read of an unmapped page in a range declared PF_RESUME: the fixup
 * maps the page and the same instruction is retried and completes.
 */
static void check_fault_resume(void)
{
	volatile uint64_t *p = (volatile uint64_t *)RESUME_VA;
	struct pf_record rec = {0};
	uint64_t val, old;
	unsigned n;

	pf_expect(RESUME_VA, RESUME_VA + PAGE_SIZE, PF_RESUME, map_on_fault);
	val = *p;
	n = pf_expect_end(&rec);
	report_check(n == 1 && val == PATTERN_B && rec.addr == RESUME_VA &&
			     !(rec.error & PF_ERR_P),
		     "mm: expected fault recorded and resumed",
		     "%u faults, read %llx, error %llx", n,
		     (unsigned long long)val, (unsigned long long)rec.error);
	vm_unmap(RESUME_VA, PT_4K, &old);
	invlpg((const void *)RESUME_VA);
}

/* Map and unmap CYCLE_PAGES frames: the free count must come back. */
static void check_accounting(void)
{
	uint64_t before = frames_free(), pa, old;
	bool ok = true;

	for (int i = 1; i <= CYCLE_PAGES; i++) {
		pa = frame_alloc(0);
		ok &= pa && vm_map(TEST_VA + i * PAGE_SIZE, pa, PT_4K,
				   data_flags(), NULL) == PT_OK;
	}
	for (int i = 1; i <= CYCLE_PAGES; i++) {
		ok &= vm_unmap(TEST_VA + i * PAGE_SIZE, PT_4K, &old) == PT_OK;
		ok &= frame_free(old & PTE_ADDR_MASK) == PMM_OK;
		invlpg((void *)(TEST_VA + i * PAGE_SIZE));
	}
	report_check(ok && frames_free() == before,
		     "mm: allocator accounting after a map/unmap cycle",
		     "free frames %llu before, %llu after (ok %d)",
		     (unsigned long long)before,
		     (unsigned long long)frames_free(), ok);
}

/* The first and last frame of every extent, through the direct map. */
static void check_direct_map(void)
{
	struct pmm_extent_info e;
	unsigned bad = 0, faults;
	struct pt_walk w;
	uint64_t val;

	pf_expect(DIRECT_MAP_BASE, DIRECT_MAP_BASE + DIRECT_MAP_MAX, PF_SKIP,
		  NULL);
	for (size_t i = 0; mm_extent(i, &e); i++) {
		uint64_t ends[2] = {e.base, e.base + e.len - PAGE_SIZE};

		for (int k = 0; k < 2; k++) {
			vm_walk(DIRECT_MAP_BASE + ends[k], &w);
			bad += !w.mapped || w.pa != ends[k];
			bad += read_u64_safe(phys_to_virt(ends[k]), &val) != 0;
		}
	}
	faults = pf_expect_end(NULL);
	report_check(!bad && !faults, "mm: direct map covers usable memory",
		     "%u bad translations or reads, %u faults", bad, faults);
}

void mm_selftest_run(void)
{
	check_map_rw();
	check_remap();
	check_protection();
	check_fault_resume();
	check_accounting();
	check_direct_map();
}
