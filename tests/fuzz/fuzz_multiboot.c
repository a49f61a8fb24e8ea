// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: kernel/multiboot.c, the multiboot 1 and 2 information
 * a loader leaves (what kernel/bootinfo.c hands to it through an identity
 * reader), then the summaries the boot report prints from it.
 *
 * Input: u8 mode, u16 offset of the info block in the image, then the
 * image, served at IMAGE_PA (mode & 3: 0 multiboot1, 1 and 2 multiboot2,
 * 3 the next u32 is the magic as it is, so unknown magics are tried).
 * The pointers inside a multiboot1 block (command line, modules, memory
 * map, loader name) are 32-bit physical addresses: the fuzzer learns
 * IMAGE_PA from the reader's comparisons. Address 0 is unreadable, as in
 * the kernel.
 */
#include "fuzz.h"
#include "kernel/multiboot.h"

#define IMAGE_PA 0x10000ull

static struct boot_info bi;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	struct fuzz_mem mem = {.refuse_zero = true};
	uint8_t mode = fuzz_u8(&in);
	uint64_t info = IMAGE_PA + fuzz_u16(&in);
	uint32_t magic = (mode & 3) == 0   ? MB1_BOOTLOADER_MAGIC
			 : (mode & 3) != 3 ? MB2_BOOTLOADER_MAGIC
					   : fuzz_u32(&in);
	size_t len;
	const uint8_t *image = fuzz_bytes(&in, in.n, &len);
	uint8_t *copy = len ? malloc(len) : NULL;
	int ret;

	/* The parser must not depend on what was in the struct before. */
	memset(&bi, 0x5a, sizeof(bi));
	if (len) {
		memcpy(copy, image, len);
		fuzz_mem_add(&mem, IMAGE_PA, copy, len);
	}
	ret = multiboot_parse(magic, info, fuzz_mem_read, &mem, &bi);
	fuzz_mem_done(&mem);

	FUZZ_CHECK(ret == 0 || ret == -1, "returned %d", ret);
	if (ret < 0)
		FUZZ_CHECK(bi.proto == BOOT_NONE, "failed, yet proto %d",
			   bi.proto);
	else
		FUZZ_CHECK(bi.proto == (magic == MB1_BOOTLOADER_MAGIC
						? BOOT_MB1
						: BOOT_MB2),
			   "proto %d for magic 0x%x", bi.proto, magic);
	FUZZ_CHECK(bi.error_count > 0 || ret == 0, "failed without saying why");
	for (size_t i = 0; i < bi.error_count && i < BOOT_ERR_MAX; i++)
		fuzz_check_printable(bi.errors[i], BOOT_ERR_LEN);
	FUZZ_CHECK(bi.mmap_count <= BOOT_MMAP_MAX, "%zu map entries",
		   bi.mmap_count);
	FUZZ_CHECK(bi.mod_count <= BOOT_MODS_MAX, "%zu modules", bi.mod_count);
	FUZZ_CHECK(bi.keep_count <= BOOT_KEEP_MAX, "%zu kept ranges",
		   bi.keep_count);
	FUZZ_CHECK(bi.have_mmap == (bi.mmap_count > 0), "have_mmap %d, %zu",
		   bi.have_mmap, bi.mmap_count);
	FUZZ_CHECK(bi.rsdp_len <= sizeof(bi.rsdp), "rsdp_len %zu", bi.rsdp_len);
	FUZZ_CHECK(strnlen(bi.cmdline, BOOT_CMDLINE_MAX) < BOOT_CMDLINE_MAX,
		   "cmdline not terminated");
	/* Whole, or marked cut with its full length: never a silent cut. */
	FUZZ_CHECK(bi.cmdline_truncated == (bi.cmdline_len >= BOOT_CMDLINE_MAX),
		   "cmdline of %zu bytes, truncated %d", bi.cmdline_len,
		   bi.cmdline_truncated);
	FUZZ_CHECK(bi.cmdline_truncated || strlen(bi.cmdline) == bi.cmdline_len,
		   "cmdline of %zu bytes kept as %zu", bi.cmdline_len,
		   strlen(bi.cmdline));
	FUZZ_CHECK(strnlen(bi.loader, sizeof(bi.loader)) < sizeof(bi.loader),
		   "loader name not terminated");
	/* The report prints the loader name as it is: printable only. */
	fuzz_check_printable(bi.loader, sizeof(bi.loader));
	fuzz_check_printable(boot_path_name(&bi), 32);
	(void)boot_usable_bytes(&bi);
	free(copy);
	return 0;
}
