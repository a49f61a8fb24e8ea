// SPDX-License-Identifier: MIT
/*
 * SMBIOS type 4 (processor information): one structure per socket, its
 * status and its core and thread counts (see smbios.h). Offsets are
 * DSP0134's: Status at 0x18 (2.0), Core Count, Core Enabled and Thread
 * Count at 0x23-0x25 (2.5), their 16-bit "2" forms at 0x2a-0x2f (3.0, for
 * counts of 256 and more, the 8-bit field then 0xFF), Thread Enabled at
 * 0x30 (3.6). A field beyond the structure's length is unknown.
 */
#include "lib/printf.h"
#include "smbios.h"

#define T4_STATUS	   0x18
#define T4_CORE_COUNT	   0x23
#define T4_CORE_ENABLED	   0x24
#define T4_THREAD_COUNT	   0x25
#define T4_CORE_COUNT2	   0x2a
#define T4_CORE_ENABLED2   0x2c
#define T4_THREAD_COUNT2   0x2e
#define T4_THREAD_ENABLED  0x30
#define STATUS_POPULATED   0x40
#define STATUS_CPU_MASK	   0x07
#define CPU_ENABLED	   1
#define CPU_DISABLED_USER  2 /* in the BIOS setup */
#define CPU_DISABLED_ERROR 3 /* by the BIOS, after a POST error */
#define CPU_IDLE	   4

static unsigned get16(const uint8_t *p)
{
	return (unsigned)(p[0] | p[1] << 8);
}

/*
 * An 8-bit count at off, 0xFF meaning "see the 16-bit one at off2": 0 if
 * unknown (0, a 0xFF with no 16-bit field, 0xFFFF, or past len).
 */
static unsigned count(const uint8_t *s, size_t len, size_t off, size_t off2)
{
	unsigned v;

	if (len <= off)
		return 0;
	if (s[off] != 0xff)
		return s[off];
	if (len < off2 + 2)
		return 0;
	v = get16(s + off2);
	return v == 0xffff ? 0 : v;
}

static void add(unsigned v, unsigned bit, unsigned *sum, unsigned *unknown)
{
	if (v)
		*sum += v;
	else
		*unknown |= bit;
}

void smbios_cpus_add(const uint8_t *s, size_t len, struct smbios_cpus *acc)
{
	unsigned cores, cores_en, threads, threads_en = 0, st;

	acc->structs++;
	if (len <= T4_STATUS || !(s[T4_STATUS] & STATUS_POPULATED))
		return;
	acc->sockets++;
	st = s[T4_STATUS] & STATUS_CPU_MASK;
	cores = count(s, len, T4_CORE_COUNT, T4_CORE_COUNT2);
	cores_en = count(s, len, T4_CORE_ENABLED, T4_CORE_ENABLED2);
	threads = count(s, len, T4_THREAD_COUNT, T4_THREAD_COUNT2);
	if (len >= T4_THREAD_ENABLED + 2) {
		threads_en = get16(s + T4_THREAD_ENABLED);
		if (threads_en == 0xffff)
			threads_en = 0;
	}
	add(cores, SMBIOS_CPU_CORES, &acc->cores, &acc->unknown);
	add(cores_en, SMBIOS_CPU_CORES_ENABLED, &acc->cores_enabled,
	    &acc->unknown);
	add(threads, SMBIOS_CPU_THREADS, &acc->threads, &acc->unknown);
	add(threads_en, SMBIOS_CPU_THREADS_ENABLED, &acc->threads_enabled,
	    &acc->unknown);
	if (st == CPU_DISABLED_USER || st == CPU_DISABLED_ERROR) {
		acc->disabled++;
		return;
	}
	if ((cores_en && cores && cores_en < cores) ||
	    (threads_en && threads && threads_en < threads))
		acc->some_off = true;
	if (threads_en)
		acc->cpus_max += threads_en;
	else if (cores_en && cores && threads && threads >= cores)
		acc->cpus_max += cores_en * ((threads + cores - 1) / cores);
	else
		acc->max_unknown = true;
	/* Thread Count is no lower bound: SMT may be off (3.6 says so in
	 * Thread Enabled; before it only Core Enabled is sure). */
	if (threads_en)
		acc->cpus_min += threads_en;
	else if (cores_en)
		acc->cpus_min += cores_en;
	else if (st == CPU_ENABLED || st == CPU_IDLE)
		acc->cpus_min++;
}

/* v in b (12 bytes), or "not given" where the bit is unknown. */
static const char *num(char *b, unsigned v, unsigned unknown, unsigned bit)
{
	if (unknown & bit)
		return "not given";
	ksnprintf(b, 12, "%u", v);
	return b;
}

void smbios_cpus_describe(const struct smbios_cpus *c, char *buf, size_t cap)
{
	char b[4][12], off[24] = "";
	unsigned u = c->unknown;

	if (c->disabled)
		ksnprintf(off, sizeof(off), " (%u disabled)", c->disabled);
	if (!c->sockets) {
		ksnprintf(buf, cap, "0 populated sockets of %u", c->structs);
		return;
	}
	ksnprintf(buf, cap,
		  "%u populated socket%s%s: cores %s, enabled %s; threads %s, "
		  "enabled %s",
		  c->sockets, c->sockets == 1 ? "" : "s", off,
		  num(b[0], c->cores, u, SMBIOS_CPU_CORES),
		  num(b[1], c->cores_enabled, u, SMBIOS_CPU_CORES_ENABLED),
		  num(b[2], c->threads, u, SMBIOS_CPU_THREADS),
		  num(b[3], c->threads_enabled, u, SMBIOS_CPU_THREADS_ENABLED));
}
