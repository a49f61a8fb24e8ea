// SPDX-License-Identifier: MIT
/*
 * /init of the Linux side (docs/linux.md): stands the machine up (proc,
 * sysfs, devtmpfs, the zram module and a zram swap), prints the env
 * record, runs the seeds' workloads, and ends as the harness does: the
 * summary, EXIT: STATUS=n, QEMU's exit device under a hypervisor, power
 * off.
 */
#include "linux/args.h"
#include "linux/env.h"
#include "linux/out.h"
#include "linux/sys.h"
#include "linux/workloads.h"
#include "kernel/cpu.h"

#include <unistd.h>

static bool swap_up(const struct args *a, struct swap_info *si)
{
	char why[256];
	const char *name = "linux: zram swap set up";

	if (!sys_load_modules(why, sizeof(why)) ||
	    !sys_zram_swap(a->zram_mb << 20, si, why, sizeof(why))) {
		out_fail(name, "%s", why);
		return false;
	}
	out_pass(name, "%s, %s, %llu MiB", si->device, si->comp,
		 (unsigned long long)(si->bytes >> 20));
	return true;
}

int main(int argc, char **argv)
{
	struct invlpgb_state inv;
	struct swap_info si;
	struct args a;
	unsigned cpus;
	bool swap = false;

	sys_mount();
	sys_quiet_console();
	cpu_identify();
	out_line("%s", "");
	/* the harness's banner words: LAVA's monitors start at them */
	out_line("shootdown: TLB invalidation cost harness: the Linux side "
		 "(docs/linux.md)");
	cpus = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	args_parse(&a, argc, argv, cpus);
	if (a.pageout)
		swap = swap_up(&a, &si);
	env_invlpgb(&inv);
	env_record(&a, cpus, &inv, swap ? &si : NULL);
	env_invlpgb_verdict(&inv);
	if (a.flush2)
		flush2_run(&a, cpus);
	if (a.pageout && swap)
		pageout_run(&a, cpus);
	sys_power_off(out_finish());
}
