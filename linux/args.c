// SPDX-License-Identifier: MIT
/*
 * key=value words, a later one for the same key winning, as the harness
 * reads its command line: a word that is wrong is named in an
 * `INFO: cmdline:` line saying what applies instead, and the run goes on.
 */
#include "linux/args.h"
#include "linux/out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct num_opt {
	const char *key;
	size_t off;
	uint64_t lo, hi;
};

#define OPT(k, lo, hi)                               \
	{                                            \
#k, offsetof(struct args, k), lo, hi \
	}
static const struct num_opt nums[] = {
	OPT(flush2_ms, 10, 600000), OPT(flush2_pages, 1, 65536),
	OPT(reclaim_mb, 2, 8192),   OPT(hot_mb, 1, 1 << 20),
	OPT(duration_ms, 5, 60000), OPT(zram_mb, 0, 1 << 20),
};

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	*v = strtoull(s, &end, 10);
	return !*end;
}

static void bad(const char *word, const char *why, const char *key,
		uint64_t dflt)
{
	out_info("cmdline: '%s': %s: using default '%s=%llu'", word, why, key,
		 (unsigned long long)dflt);
}

static bool num_word(struct args *a, const char *word, const char *val,
		     size_t klen)
{
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		uint64_t *slot = (uint64_t *)((char *)a + nums[i].off), v;

		if (strlen(nums[i].key) != klen ||
		    strncmp(word, nums[i].key, klen))
			continue;
		if (!parse_u64(val, &v) || v < nums[i].lo || v > nums[i].hi) {
			char why[64];

			snprintf(why, sizeof(why), "not a number in %llu..%llu",
				 (unsigned long long)nums[i].lo,
				 (unsigned long long)nums[i].hi);
			bad(word, why, nums[i].key, *slot);
			return true;
		}
		*slot = v;
		return true;
	}
	return false;
}

static void workloads_word(struct args *a, const char *word, const char *val)
{
	char buf[128], *save = NULL;
	bool f = false, p = false;

	snprintf(buf, sizeof(buf), "%s", val);
	for (char *t = strtok_r(buf, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, "tlb_flush2"))
			f = true;
		else if (!strcmp(t, "pageout"))
			p = true;
		else if (!strcmp(t, "all"))
			f = p = true;
		else if (strcmp(t, "none")) {
			out_info("cmdline: '%s': '%s' is not tlb_flush2, "
				 "pageout, all or none: using "
				 "'workloads=%s%s%s'",
				 word, t, a->flush2 ? "tlb_flush2" : "",
				 a->flush2 && a->pageout ? "," : "",
				 a->pageout ? "pageout" : "");
			return;
		}
	}
	a->flush2 = f;
	a->pageout = p;
}

static void threads_word(struct args *a, const char *word, const char *val,
			 unsigned cpus)
{
	char buf[128], *save = NULL;
	unsigned n = 0, c[MAX_COUNTS];
	uint64_t v;

	snprintf(buf, sizeof(buf), "%s", val);
	for (char *t = strtok_r(buf, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, "all"))
			v = cpus;
		else if (!parse_u64(t, &v) || !v || v > cpus ||
			 n == MAX_COUNTS) {
			out_info("cmdline: '%s': '%s' is not a thread count "
				 "in 1..%u (at most %d counts): using the "
				 "default 1, 2, 4 .. all",
				 word, t, cpus, MAX_COUNTS);
			return;
		}
		c[n++] = (unsigned)v;
	}
	memcpy(a->counts, c, sizeof(c));
	a->ncounts = n;
}

/* 1, 2, 4, ... and every CPU, as the harness's flushloop counts them */
static void default_counts(struct args *a, unsigned cpus)
{
	a->ncounts = 0;
	for (unsigned n = 1; n < cpus && a->ncounts < MAX_COUNTS - 1; n *= 2)
		a->counts[a->ncounts++] = n;
	a->counts[a->ncounts++] = cpus;
}

void args_parse(struct args *a, int argc, char **argv, unsigned cpus)
{
	*a = (struct args){.flush2 = true,
			   .pageout = true,
			   .flush2_ms = 300,
			   .flush2_pages = 1,
			   .reclaim_mb = 64,
			   .hot_mb = 2,
			   .duration_ms = 500};
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i], *eq = strchr(w, '=');
		size_t klen = eq ? (size_t)(eq - w) : 0;

		if (!eq) {
			out_info("cmdline: '%s': not key=value: ignored", w);
		} else if (klen == 9 && !strncmp(w, "workloads", 9)) {
			workloads_word(a, w, eq + 1);
		} else if (klen == 7 && !strncmp(w, "threads", 7)) {
			threads_word(a, w, eq + 1, cpus);
		} else if (!num_word(a, w, eq + 1, klen)) {
			out_info("cmdline: '%s': unknown key: ignored", w);
		}
	}
	if (!a->ncounts)
		default_counts(a, cpus);
	if (!a->zram_mb) /* room for the cold map, compressed or not */
		a->zram_mb = a->reclaim_mb + a->reclaim_mb / 2 + 16;
}
