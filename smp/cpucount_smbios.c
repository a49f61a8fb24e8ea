// SPDX-License-Identifier: MIT
/*
 * SMBIOS, read once for the env record and the bring-up verdict (see
 * smp/cpucount.h): only memory the firmware's map calls RAM or reserved,
 * through read-only firmware mappings, never written.
 */
#include "kernel/bootinfo.h"
#include "kernel/smbios.h"
#include "mm/vm.h"
#include "smp/cpucount.h"

static const void *reader(void *ctx, uint64_t pa, size_t len)
{
	(void)ctx;
	return phys_map_firmware(pa, len);
}

const struct smbios_info *cpucount_smbios_info(void)
{
	static struct smbios_info sm;
	static bool done;

	if (!done) {
		smbios_read(&boot_info,
			    boot_info.efi ? boot_info.efi_systab : 0, reader,
			    NULL, &sm);
		done = true;
	}
	return &sm;
}
