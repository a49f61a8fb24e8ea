// SPDX-License-Identifier: MIT
/*
 * Multiboot 1 and 2 information parser (see multiboot.h); the questions
 * asked of its result are in multiboot_query.c.
 *
 * All loader data is read through the phys_reader and decoded byte by byte
 * (little endian, no unaligned loads), and every offset is checked against
 * the length it must stay within before it is used. A pointer returned by
 * the reader is only relied on until the next call, so a reader may use a
 * single temporary mapping window. A problem is recorded and the parse goes
 * on with whatever is still safe to use.
 */
#include "multiboot.h"
#include "lib/kstring.h"

/* Far above any real info block: a larger size is a corrupt header. */
#define MB_MAX_BLOCK (1u << 20)

/* Multiboot 1 flags bits and the info block size each one implies. */
#define MB1_F_MEM     (1u << 0)
#define MB1_F_CMDLINE (1u << 2)
#define MB1_F_MODS    (1u << 3)
#define MB1_F_MMAP    (1u << 6)
#define MB1_F_LOADER  (1u << 9)
#define MB1_INFO_MAX  68 /* through boot_loader_name at offset 64 */

/* Multiboot 2 tag types that are used. */
enum {
	MB2_END = 0,
	MB2_CMDLINE = 1,
	MB2_LOADER = 2,
	MB2_MODULE = 3,
	MB2_MEMINFO = 4,
	MB2_MMAP = 6,
	MB2_EFI32 = 11,
	MB2_EFI64 = 12,
	MB2_ACPI_OLD = 14,
	MB2_ACPI_NEW = 15,
	MB2_EFI_BS = 18,
};

struct mb {
	phys_reader rd;
	void *ctx;
	struct boot_info *bi;
};

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static const uint8_t *mb_read(struct mb *m, uint64_t addr, size_t len)
{
	if (addr + len < addr)
		return NULL; /* wraps around the address space */
	return m->rd(m->ctx, addr, len);
}

static void err_add(struct boot_info *bi, const char *msg)
{
	if (bi->error_count < BOOT_ERR_MAX)
		kstrlcpy(bi->errors[bi->error_count], msg, BOOT_ERR_LEN);
	bi->error_count++;
}

/* Records "<pre>0x<v><post>". */
static void err_num(struct boot_info *bi, const char *pre, uint64_t v,
		    const char *post)
{
	char msg[BOOT_ERR_LEN];
	struct kbuf b;

	kbuf_init(&b, msg, sizeof(msg));
	kbuf_puts(&b, pre);
	kbuf_hex(&b, v);
	kbuf_puts(&b, post);
	err_add(bi, msg);
}

/* Records "mb2: tag <type> at +0x<off>: <what>". */
static void err_tag(struct boot_info *bi, uint32_t type, size_t off,
		    const char *what)
{
	char msg[BOOT_ERR_LEN];
	struct kbuf b;

	kbuf_init(&b, msg, sizeof(msg));
	kbuf_puts(&b, "mb2: tag ");
	kbuf_u64(&b, type);
	kbuf_puts(&b, " at +");
	kbuf_hex(&b, off);
	kbuf_puts(&b, ": ");
	kbuf_puts(&b, what);
	err_add(bi, msg);
}

/* Cannot fill up: the limits allow at most 21 ranges. */
static void keep(struct boot_info *bi, uint64_t base, uint64_t len)
{
	struct boot_region *r = &bi->keep[bi->keep_count];

	if (!len || bi->keep_count == BOOT_KEEP_MAX)
		return;
	r->base = base;
	r->len = len;
	r->type = MEM_RESERVED;
	bi->keep_count++;
}

static void mmap_add(struct boot_info *bi, uint64_t base, uint64_t len,
		     uint32_t type)
{
	struct boot_region *r;

	if (!len)
		return; /* describes nothing */
	if (base + (len - 1) < base) {
		err_num(bi, "boot: memory region at ", base,
			" wraps past 2^64: ignored");
		return;
	}
	if (bi->mmap_count == BOOT_MMAP_MAX) {
		if (!bi->mmap_truncated)
			err_add(bi, "boot: more than 512 memory regions: "
				    "rest ignored");
		bi->mmap_truncated = true;
		return;
	}
	r = &bi->mmap[bi->mmap_count++];
	r->base = base;
	r->len = len;
	r->type = type;
}

static void mod_add(struct boot_info *bi, uint64_t start, uint64_t end,
		    const char *who)
{
	if (end < start) {
		err_num(bi, who, start, ": module ends before it starts");
		return;
	}
	if (bi->mod_count == BOOT_MODS_MAX) {
		err_num(bi, who, start, ": too many modules: ignored");
		return;
	}
	bi->mods[bi->mod_count].base = start;
	bi->mods[bi->mod_count].len = end - start;
	bi->mod_count++;
	keep(bi, start, end - start);
}

/*
 * Copies the C string at physical addr into dst[cap]; returns its length,
 * counted on past cap (up to MB_MAX_BLOCK) so that a cut can be named.
 */
static size_t mb1_string(struct mb *m, uint64_t addr, char *dst, size_t cap)
{
	const uint8_t *p = NULL;
	size_t n = 0;

	while ((p = mb_read(m, addr + n, 1)) && *p && n < MB_MAX_BLOCK) {
		if (n < cap - 1)
			dst[n] = (char)*p;
		n++;
	}
	dst[n < cap - 1 ? n : cap - 1] = '\0';
	if (!p)
		err_num(m->bi, "mb1: string unreadable at ", addr + n, "");
	keep(m->bi, addr, (n < cap - 1 ? n : cap - 1) + (p && !*p));
	return n;
}

/* The whole line or, where it does not fit, a cut copy marked as such. */
static void mb1_cmdline(struct mb *m, uint64_t addr)
{
	struct boot_info *bi = m->bi;
	char msg[BOOT_ERR_LEN];
	struct kbuf b;

	bi->cmdline_len = mb1_string(m, addr, bi->cmdline, sizeof(bi->cmdline));
	if (bi->cmdline_len < sizeof(bi->cmdline))
		return;
	bi->cmdline_truncated = true;
	kbuf_init(&b, msg, sizeof(msg));
	kbuf_puts(&b, "mb1: command line at ");
	kbuf_hex(&b, addr);
	kbuf_puts(&b, bi->cmdline_len < MB_MAX_BLOCK ? ": " : ": at least ");
	kbuf_u64(&b, bi->cmdline_len);
	kbuf_puts(&b, " bytes, longer than ");
	kbuf_u64(&b, BOOT_CMDLINE_MAX - 1);
	kbuf_puts(&b, ": not used");
	err_add(bi, msg);
}

static void mb1_mods(struct mb *m, uint32_t count, uint64_t addr)
{
	if (count > BOOT_MODS_MAX) {
		err_add(m->bi, "mb1: more than 16 modules: rest ignored");
		count = BOOT_MODS_MAX;
	}
	keep(m->bi, addr, (uint64_t)count * 16);
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *e = mb_read(m, addr + 16 * i, 16);

		if (!e) {
			err_num(m->bi, "mb1: module list unreadable at ",
				addr + 16 * i, "");
			return;
		}
		mod_add(m->bi, get32(e), get32(e + 4), "mb1: module at ");
	}
}

/* Entries are: u32 size, u64 base, u64 length, u32 type; next at +size+4. */
static void mb1_mmap(struct mb *m, uint32_t len, uint64_t addr)
{
	uint64_t off = 0;

	if (!len || len > MB_MAX_BLOCK) {
		err_num(m->bi, "mb1: memory map length ", len, ": ignored");
		return;
	}
	keep(m->bi, addr, len);
	while (off + 4 <= len) {
		const uint8_t *e = mb_read(m, addr + off, 4);
		uint32_t size;

		if (!e)
			break;
		size = get32(e);
		if (size < 20 || (uint64_t)size + 4 > len - off) {
			err_num(m->bi, "mb1: bad memory map entry at +", off,
				": rest ignored");
			return;
		}
		e = mb_read(m, addr + off, 24);
		if (!e)
			break;
		mmap_add(m->bi, get64(e + 4), get64(e + 12), get32(e + 20));
		off += (uint64_t)size + 4;
	}
	if (off + 4 <= len)
		err_num(m->bi, "mb1: memory map unreadable at ", addr + off,
			"");
}

static size_t mb1_info_size(uint32_t flags)
{
	if (flags & MB1_F_LOADER)
		return MB1_INFO_MAX;
	if (flags & MB1_F_MMAP)
		return 52;
	if (flags & MB1_F_MODS)
		return 28;
	if (flags & MB1_F_CMDLINE)
		return 20;
	return flags & MB1_F_MEM ? 12 : 4;
}

static int mb1_parse(struct mb *m, uint64_t addr)
{
	struct boot_info *bi = m->bi;
	uint8_t info[MB1_INFO_MAX];
	const uint8_t *p = mb_read(m, addr, 4);
	size_t size = p ? mb1_info_size(get32(p)) : 0;
	uint32_t flags;

	p = p ? mb_read(m, addr, size) : NULL;
	if (!p) {
		err_num(bi, "mb1: info block unreadable at ", addr, "");
		return -1;
	}
	/* A copy: the reader's pointer is not used across further reads. */
	kmemcpy(info, p, size);
	flags = get32(info);
	keep(bi, addr, size);
	if (flags & MB1_F_MEM) {
		bi->have_meminfo = true;
		bi->mem_lower_kb = get32(info + 4);
		bi->mem_upper_kb = get32(info + 8);
	}
	if (flags & MB1_F_CMDLINE)
		mb1_cmdline(m, get32(info + 16));
	if (flags & MB1_F_MODS)
		mb1_mods(m, get32(info + 20), get32(info + 24));
	if (flags & MB1_F_MMAP)
		mb1_mmap(m, get32(info + 44), get32(info + 48));
	if (flags & MB1_F_LOADER)
		mb1_string(m, get32(info + 64), bi->loader, sizeof(bi->loader));
	return 0;
}

/*
 * A string tag: n bytes at s that should end in a NUL; returns the length
 * (without the NUL). One without a NUL ends at the tag's end: kept whole.
 */
static size_t mb2_string(struct boot_info *bi, const uint8_t *s, size_t n,
			 char *dst, size_t cap, uint32_t type, size_t off)
{
	size_t len = kstrnlen((const char *)s, n), cut = len;

	if (len == n)
		err_tag(bi, type, off, "string without NUL: ends at the tag");
	if (cut > cap - 1)
		cut = cap - 1;
	kmemcpy(dst, s, cut);
	dst[cut] = '\0';
	return len;
}

static void mb2_cmdline(struct boot_info *bi, const uint8_t *t, uint32_t size,
			size_t off)
{
	char what[BOOT_ERR_LEN];
	struct kbuf b;

	bi->cmdline_len = mb2_string(bi, t + 8, size - 8, bi->cmdline,
				     sizeof(bi->cmdline), MB2_CMDLINE, off);
	if (bi->cmdline_len < sizeof(bi->cmdline))
		return;
	bi->cmdline_truncated = true;
	kbuf_init(&b, what, sizeof(what));
	kbuf_puts(&b, "command line of ");
	kbuf_u64(&b, bi->cmdline_len);
	kbuf_puts(&b, " bytes, longer than ");
	kbuf_u64(&b, BOOT_CMDLINE_MAX - 1);
	kbuf_puts(&b, ": not used");
	err_tag(bi, MB2_CMDLINE, off, what);
}

/* Tag 6: u32 entry_size, u32 entry_version, then the entries. */
static void mb2_mmap(struct boot_info *bi, const uint8_t *t, uint32_t size,
		     size_t off)
{
	uint32_t esize = get32(t + 8), n;

	/* Entries may grow in later versions; the first 24 bytes stay. */
	if (esize < 24) {
		err_tag(bi, MB2_MMAP, off, "entry_size < 24: map ignored");
		return;
	}
	n = (size - 16) / esize; /* a partial entry at the end is not used */
	if (!n)
		err_tag(bi, MB2_MMAP, off, "memory map has no entries");
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = t + 16 + (size_t)i * esize;

		mmap_add(bi, get64(e), get64(e + 8), get32(e + 16));
	}
}

static void mb2_rsdp(struct boot_info *bi, const uint8_t *t, uint32_t size,
		     bool v2)
{
	size_t n = size - 8;

	/* Prefer the ACPI 2.0+ copy whatever the order of the tags. */
	if (!v2 && bi->rsdp_len)
		return;
	if (n > sizeof(bi->rsdp))
		n = sizeof(bi->rsdp);
	kmemcpy(bi->rsdp, t + 8, n);
	bi->rsdp_len = n;
}

/* The smallest size (header included) of each tag type that is used. */
static const uint8_t mb2_min_size[] = {
	[MB2_MODULE] = 16,	 [MB2_MEMINFO] = 16, [MB2_MMAP] = 16,
	[MB2_EFI32] = 12,	 [MB2_EFI64] = 16,   [MB2_ACPI_OLD] = 8 + 20,
	[MB2_ACPI_NEW] = 8 + 36, [MB2_EFI_BS] = 8,
};

static void mb2_tag(struct boot_info *bi, const uint8_t *t, uint32_t type,
		    uint32_t size, size_t off)
{
	if (type < sizeof(mb2_min_size) && size < mb2_min_size[type]) {
		err_tag(bi, type, off, "too short: ignored");
		return;
	}
	switch (type) {
	case MB2_CMDLINE:
		mb2_cmdline(bi, t, size, off);
		break;
	case MB2_LOADER:
		mb2_string(bi, t + 8, size - 8, bi->loader, sizeof(bi->loader),
			   type, off);
		break;
	case MB2_MODULE:
		mod_add(bi, get32(t + 8), get32(t + 12), "mb2: module at ");
		break;
	case MB2_MEMINFO:
		bi->have_meminfo = true;
		bi->mem_lower_kb = get32(t + 8);
		bi->mem_upper_kb = get32(t + 12);
		break;
	case MB2_MMAP:
		mb2_mmap(bi, t, size, off);
		break;
	case MB2_EFI32:
	case MB2_EFI64:
		bi->efi = true;
		bi->efi_systab =
			type == MB2_EFI32 ? get32(t + 8) : get64(t + 8);
		break;
	case MB2_ACPI_OLD:
	case MB2_ACPI_NEW:
		mb2_rsdp(bi, t, size, type == MB2_ACPI_NEW);
		break;
	case MB2_EFI_BS:
		bi->efi_bs_active = true;
		break;
	}
}

/* Walks the 8-byte aligned tags that follow the 8-byte header. */
static void mb2_tags(struct boot_info *bi, const uint8_t *p, uint32_t total)
{
	size_t off = 8;

	while (off + 8 <= total) {
		uint32_t type = get32(p + off), size = get32(p + off + 4);

		if (size < 8 || size > total - off) {
			err_tag(bi, type, off,
				size < 8
					? "size below 8: rest ignored"
					: "runs past total_size: rest ignored");
			return;
		}
		if (type == MB2_END)
			return;
		mb2_tag(bi, p + off, type, size, off);
		off += ((size_t)size + 7) & ~(size_t)7;
	}
	err_add(bi, "mb2: no end tag");
}

static int mb2_parse(struct mb *m, uint64_t addr)
{
	const uint8_t *p = mb_read(m, addr, 8);
	uint32_t total = p ? get32(p) : 0;

	if (p && (total < 16 || total > MB_MAX_BLOCK)) {
		err_num(m->bi, "mb2: implausible total_size ", total, "");
		return -1;
	}
	p = p ? mb_read(m, addr, total) : NULL;
	if (!p) {
		err_num(m->bi, "mb2: info block unreadable at ", addr, "");
		return -1;
	}
	keep(m->bi, addr, total);
	mb2_tags(m->bi, p, total);
	return 0;
}

int multiboot_parse(uint32_t magic, uint64_t info_addr, phys_reader rd,
		    void *ctx, struct boot_info *out)
{
	struct mb m = {.rd = rd, .ctx = ctx, .bi = out};
	int ret = -1;

	kmemset(out, 0, sizeof(*out));
	if (!rd)
		err_add(out, "boot: no way to read the info block");
	else if (magic == MB1_BOOTLOADER_MAGIC)
		ret = mb1_parse(&m, info_addr);
	else if (magic == MB2_BOOTLOADER_MAGIC)
		ret = mb2_parse(&m, info_addr);
	else
		err_num(out, "boot: unknown loader magic ", magic, "");
	if (ret == 0)
		out->proto =
			magic == MB1_BOOTLOADER_MAGIC ? BOOT_MB1 : BOOT_MB2;
	out->have_mmap = out->mmap_count > 0;
	/*
	 * The boot report prints the name inside its own line: a newline or
	 * an escape sequence there would write lines of the loader's choosing.
	 * The command line stays as given (cmdline.c names such bytes).
	 */
	for (char *c = out->loader; *c; c++) {
		if (!kisprint((unsigned char)*c))
			*c = '?';
	}
	return ret;
}
