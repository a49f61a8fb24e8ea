// SPDX-License-Identifier: MIT
/* SMBIOS entry point and the type 0 and 1 strings (see smbios.h). */
#include <stdarg.h>
#include "lib/kstring.h"
#include "lib/printf.h"
#include "smbios.h"

#define EP2_MIN_LEN	  0x1e /* 2.1 declared 0x1e; the rest 0x1f */
#define EP2_MAX_LEN	  0x20
#define EP3_MIN_LEN	  0x18
#define EP_READ		  0x20 /* covers either entry point */
#define EFI_SYSTAB_LEN	  120
#define EFI_SYSTAB_SIG	  0x5453595320494249ull /* "IBI SYST" */
#define EFI_NTABLES_OFF	  104
#define EFI_TABLES_OFF	  112
#define EFI_CFG_ENTRY_LEN 24 /* GUID, then the table's address */
#define PAGE		  4096u

static const uint8_t smbios_guid[16] = {0x31, 0x2d, 0x9d, 0xeb, 0x88, 0x2d,
					0xd3, 0x11, 0x9a, 0x16, 0x00, 0x90,
					0x27, 0x3f, 0xc1, 0x4d};
static const uint8_t smbios3_guid[16] = {0x44, 0x15, 0xfd, 0xf2, 0x94, 0x97,
					 0x2c, 0x4a, 0x99, 0x2e, 0xe5, 0xbb,
					 0xcf, 0x20, 0xe3, 0x94};

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) | (uint32_t)get16(p + 2) << 16;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static uint8_t sum8(const uint8_t *p, size_t n)
{
	uint8_t s = 0;

	while (n--)
		s += *p++;
	return s;
}

bool smbios_range_ok(const struct boot_info *bi, uint64_t pa, uint64_t len)
{
	if (!len || pa + len < pa)
		return false;
	for (size_t i = 0; i < bi->mmap_count && i < BOOT_MMAP_MAX; i++) {
		const struct boot_region *r = &bi->mmap[i];

		if ((r->type == MEM_USABLE || r->type == MEM_RESERVED) &&
		    pa >= r->base && pa + len <= r->base + r->len &&
		    r->base + r->len >= r->base)
			return true;
	}
	return false;
}

struct ctx {
	const struct boot_info *bi;
	phys_reader rd;
	void *rctx;
};

static const uint8_t *read_ok(struct ctx *c, uint64_t pa, uint64_t len)
{
	if (!smbios_range_ok(c->bi, pa, len) || len > SIZE_MAX)
		return NULL;
	return c->rd(c->rctx, pa, (size_t)len);
}

static void fail(struct smbios_info *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(struct smbios_info *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(out->error, sizeof(out->error), fmt, ap);
	va_end(ap);
	out->ok = false;
	out->bios_vendor[0] = out->bios_version[0] = '\0';
	out->sys_vendor[0] = out->product[0] = '\0';
	kmemset(&out->cpus, 0, sizeof(out->cpus));
}

/* String n (1-based) of the structure whose strings start at s. */
static void get_string(const uint8_t *s, const uint8_t *end, unsigned n,
		       char *dst)
{
	size_t len = 0;

	dst[0] = '\0';
	if (!n)
		return;
	while (--n) {
		while (s < end && *s)
			s++;
		if (s >= end || s + 1 >= end || !s[1])
			return; /* fewer strings than the index */
		s++;
	}
	/* Printable ASCII only; a firmware's odd byte becomes '?'. */
	for (; s < end && *s && len < SMBIOS_STR_MAX - 1; s++)
		dst[len++] = *s >= 0x20 && *s <= 0x7e ? (char)*s : '?';
	while (len && dst[len - 1] == ' ')
		len--;
	dst[len] = '\0';
}

bool smbios_parse_table(const uint8_t *t, size_t len, struct smbios_info *out)
{
	bool seen0 = false, seen1 = false;
	size_t i = 0;

	out->ok = false;
	kmemset(&out->cpus, 0, sizeof(out->cpus));
	while (i + 4 <= len) {
		uint8_t type = t[i], slen = t[i + 1];
		const uint8_t *s, *end;
		size_t j;

		if (slen < 4 || slen > len - i) {
			fail(out,
			     "structure at offset %zu: length %u overruns "
			     "the %zu-byte table",
			     i, slen, len);
			return false;
		}
		/* The strings end with two NULs (just two when there are none). */
		for (j = i + slen; j + 1 < len && (t[j] || t[j + 1]); j++)
			;
		if (j + 1 >= len) {
			fail(out,
			     "structure at offset %zu: strings overrun "
			     "the %zu-byte table",
			     i, len);
			return false;
		}
		s = t + i + slen;
		end = t + j + 1;
		if (type == 0 && !seen0 && slen > 5) {
			get_string(s, end, t[i + 4], out->bios_vendor);
			get_string(s, end, t[i + 5], out->bios_version);
			seen0 = true;
		} else if (type == 1 && !seen1 && slen > 5) {
			get_string(s, end, t[i + 4], out->sys_vendor);
			get_string(s, end, t[i + 5], out->product);
			seen1 = true;
		} else if (type == 4) {
			smbios_cpus_add(t + i, slen, &out->cpus);
		}
		i = j + 2;
		if (type == 127)
			break;
	}
	out->ok = true;
	out->error[0] = '\0';
	return true;
}

/* Checks the entry point at pa; fills version and the table's place. */
static bool entry_point(struct ctx *c, uint64_t pa, bool v3,
			struct smbios_info *out)
{
	const uint8_t *p = read_ok(c, pa, v3 ? EP3_MIN_LEN : EP2_MIN_LEN);
	unsigned len;

	out->found = true;
	out->entry_pa = pa;
	if (!p) {
		fail(out, "entry point at %#llx is outside the memory map",
		     (unsigned long long)pa);
		return false;
	}
	len = v3 ? p[6] : p[5];
	if (len < (v3 ? EP3_MIN_LEN : EP2_MIN_LEN) ||
	    len > (v3 ? EP_READ : EP2_MAX_LEN) || !(p = read_ok(c, pa, len))) {
		fail(out, "entry point at %#llx: bad length %u",
		     (unsigned long long)pa, len);
		return false;
	}
	if (sum8(p, len)) {
		fail(out, "entry point at %#llx: bad checksum",
		     (unsigned long long)pa);
		return false;
	}
	if (v3) {
		out->major = p[7];
		out->minor = p[8];
		out->table_len = get32(p + 0x0c);
		out->table_pa = get64(p + 0x10);
		return true;
	}
	if (kmemcmp(p + 0x10, "_DMI_", 5) || sum8(p + 0x10, 0x0f)) {
		fail(out, "entry point at %#llx: bad _DMI_ part or checksum",
		     (unsigned long long)pa);
		return false;
	}
	out->major = p[6];
	out->minor = p[7];
	out->table_len = get16(p + 0x16);
	out->table_pa = get32(p + 0x18);
	return true;
}

static void table(struct ctx *c, struct smbios_info *out)
{
	const uint8_t *t;

	if (!out->table_len || out->table_len > SMBIOS_TABLE_MAX) {
		fail(out, "structure table length %u is not 1..%u",
		     out->table_len, SMBIOS_TABLE_MAX);
		return;
	}
	t = read_ok(c, out->table_pa, out->table_len);
	if (!t) {
		fail(out,
		     "structure table at %#llx (%u bytes) is outside the "
		     "memory map",
		     (unsigned long long)out->table_pa, out->table_len);
		return;
	}
	smbios_parse_table(t, out->table_len, out);
}

/* The BIOS area, a page at a time, only pages the map covers. */
static bool scan_bios(struct ctx *c, struct smbios_info *out)
{
	uint64_t found2 = 0;

	for (uint64_t pg = SMBIOS_SCAN_LO; pg < SMBIOS_SCAN_HI; pg += PAGE) {
		const uint8_t *p = read_ok(c, pg, PAGE);

		for (unsigned off = 0; p && off < PAGE; off += 16) {
			if (off + 5 <= PAGE && !kmemcmp(p + off, "_SM3_", 5))
				return entry_point(c, pg + off, true, out);
			if (!found2 && !kmemcmp(p + off, "_SM_", 4))
				found2 = pg + off;
		}
	}
	return found2 && entry_point(c, found2, false, out);
}

/* The EFI configuration table: SMBIOS3 first, as in the BIOS scan. */
static bool scan_efi(struct ctx *c, uint64_t systab, struct smbios_info *out)
{
	const uint8_t *p = read_ok(c, systab, EFI_SYSTAB_LEN);
	uint64_t n, tables, pa2 = 0, pa3 = 0;

	if (!p || get64(p) != EFI_SYSTAB_SIG) {
		kstrlcpy(out->error,
			 p ? "EFI system table: bad signature"
			   : "EFI system table is outside the memory map",
			 sizeof(out->error));
		return false;
	}
	n = get64(p + EFI_NTABLES_OFF);
	tables = get64(p + EFI_TABLES_OFF);
	if (n > SMBIOS_EFI_MAX)
		n = SMBIOS_EFI_MAX;
	p = n ? read_ok(c, tables, n * EFI_CFG_ENTRY_LEN) : NULL;
	if (!p) {
		kstrlcpy(out->error,
			 n ? "EFI configuration table is outside the memory map"
			   : "EFI configuration table is empty",
			 sizeof(out->error));
		return false;
	}
	for (uint64_t i = 0; i < n; i++, p += EFI_CFG_ENTRY_LEN) {
		if (!kmemcmp(p, smbios3_guid, 16) && !pa3)
			pa3 = get64(p + 16);
		if (!kmemcmp(p, smbios_guid, 16) && !pa2)
			pa2 = get64(p + 16);
	}
	if (pa3)
		return entry_point(c, pa3, true, out);
	return pa2 && entry_point(c, pa2, false, out);
}

void smbios_read(const struct boot_info *bi, uint64_t efi_systab,
		 phys_reader rd, void *ctx, struct smbios_info *out)
{
	struct ctx c = {bi, rd, ctx};
	bool ep;

	kmemset(out, 0, sizeof(*out));
	ep = efi_systab ? scan_efi(&c, efi_systab, out) : scan_bios(&c, out);
	if (ep)
		table(&c, out);
}
