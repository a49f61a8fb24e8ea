// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the kernel command line as the loader hands it over
 * (lib/cmdline.c with the real option tables of kernel/config.c and
 * bench/options.c in one parse, the console= parser, the list kinds and
 * bench/params.c's parsers among them), then the list keys and invlpgb=
 * again on the raw line (longer than any key allows, so they see long
 * input).
 *
 * Input: u8 responders (for params_resolve_targets), u8 size of the
 * buffer given to params_list_format, then the line; a NUL ends it early,
 * as it would in the loader's string.
 */
#include "fuzz.h"
#include "bench/options.h"
#include "bench/params.h"
#include "kernel/config.h"

static size_t diag_count;

static void diag(void *ctx, const char *msg)
{
	(void)ctx;
	fuzz_check_printable(msg, PARAM_DIAG_LEN);
	diag_count++;
}

static const struct diag_sink diags = {diag, NULL};

static size_t choice_count(const char *const *c)
{
	size_t n = 0;

	while (c[n])
		n++;
	return n;
}

static bool list_word(const struct cmdline_opt *o, uint32_t v)
{
	for (size_t i = 0; o->choices && o->choices[i]; i++) {
		if (o->values[i] == v)
			return true;
	}
	return false;
}

/* In range (or a word's value, or a choice's index), no repeats. */
static void check_list(const struct cmdline_opt *o, const void *f)
{
	struct cmdline_list l;

	memcpy(&l, f, sizeof(l));
	FUZZ_CHECK(l.n <= CMDLINE_LIST_MAX, "%s: %u items", o->key, l.n);
	for (uint32_t i = 0; i < l.n; i++) {
		uint32_t v = l.v[i];

		if (o->kind == OPT_LIST_NAME)
			FUZZ_CHECK(v < choice_count(o->choices), "%s: name %u",
				   o->key, v);
		else
			FUZZ_CHECK((v >= o->min && v <= o->max) ||
					   list_word(o, v),
				   "%s: %u outside %llu..%llu", o->key, v,
				   (unsigned long long)o->min,
				   (unsigned long long)o->max);
		for (uint32_t j = 0; j < i; j++)
			FUZZ_CHECK(l.v[j] != v, "%s: %u twice", o->key, v);
	}
	/* Only `none` alone empties a list with a default. */
	FUZZ_CHECK(l.n || !o->def || o->none, "%s: empty", o->key);
}

/* Every field of a table's struct holds what its option allows. */
static void check_table(const struct cmdline_table *t, const char *line)
{
	for (size_t i = 0; i < t->nopts; i++) {
		const struct cmdline_opt *o = &t->opts[i];
		const void *f = (const char *)t->cfg + o->offset;
		uint64_t u;
		int c;

		switch (o->kind) {
		case OPT_FLAG:
			FUZZ_CHECK(*(const uint8_t *)f <= 1, "%s: bool %u",
				   o->key, *(const uint8_t *)f);
			break;
		case OPT_UINT:
			memcpy(&u, f, sizeof(u));
			FUZZ_CHECK(u >= o->min && u <= o->max,
				   "%s=%llu outside %llu..%llu", o->key,
				   (unsigned long long)u,
				   (unsigned long long)o->min,
				   (unsigned long long)o->max);
			break;
		case OPT_CHOICE:
			memcpy(&c, f, sizeof(c));
			FUZZ_CHECK(c >= 0 &&
					   (size_t)c < choice_count(o->choices),
				   "%s: choice %d", o->key, c);
			break;
		case OPT_STRING:
			FUZZ_CHECK(strnlen(f, o->size) < o->size,
				   "%s: not terminated", o->key);
			/* What the line gave, minus the separators: printable. */
			fuzz_check_printable(f, o->size);
			break;
		case OPT_CUSTOM:
			break;
		case OPT_LIST_UINT:
		case OPT_LIST_NAME:
			check_list(o, f);
			break;
		}
		/* A key the line set must be on it. */
		if (cmdline_given(t->given, t->opts, t->nopts, o->key))
			FUZZ_CHECK(strstr(line, o->key),
				   "%s given, not on line", o->key);
	}
}

static void check_config(const struct config *cfg)
{
	/* README: a divisor of 115200, on a port a 16550 can decode. */
	FUZZ_CHECK(cfg->console.baud && 115200 % cfg->console.baud == 0,
		   "baud %u", cfg->console.baud);
	FUZZ_CHECK(cfg->console.port && cfg->console.port <= 0xfff8,
		   "port 0x%x", cfg->console.port);
}

/* Two parses of one line: every option's field equal. */
static void same_fields(const struct cmdline_opt *opts, size_t nopts,
			const void *a, const void *b)
{
	for (size_t i = 0; i < nopts; i++) {
		const struct cmdline_opt *o = &opts[i];
		const char *fa = (const char *)a + o->offset;
		const char *fb = (const char *)b + o->offset;
		bool same;

		switch (o->kind) {
		case OPT_FLAG:
			same = *(const bool *)fa == *(const bool *)fb;
			break;
		case OPT_UINT:
			same = !memcmp(fa, fb, sizeof(uint64_t));
			break;
		case OPT_CHOICE:
			same = !memcmp(fa, fb, sizeof(int));
			break;
		case OPT_STRING:
			same = !strcmp(fa, fb);
			break;
		case OPT_LIST_UINT:
		case OPT_LIST_NAME:
			same = !memcmp(fa, fb, sizeof(struct cmdline_list));
			break;
		default:
			same = true;
			break;
		}
		FUZZ_CHECK(same, "%s differs between two parses", o->key);
	}
}

static void same_config(const struct config *a, const struct config *b)
{
	same_fields(config_opts, config_nopts, a, b);
	FUZZ_CHECK(a->console.port == b->console.port &&
			   a->console.baud == b->console.baud,
		   "console differs between two parses");
	FUZZ_CHECK(!memcmp(a->given, b->given, sizeof(a->given)),
		   "given differs between two parses");
}

/* The experiments' keys; OPT_CUSTOM ones by their typed values. */
static void same_params(const struct bench_params *a,
			const struct bench_params *b)
{
	same_fields(bench_opts, bench_nopts, a, b);
	FUZZ_CHECK(a->invlpgb.mode == b->invlpgb.mode &&
			   a->invlpgb.bug == b->invlpgb.bug &&
			   a->delay.on == b->delay.on &&
			   a->delay.strategy == b->delay.strategy &&
			   a->delay.cycles == b->delay.cycles,
		   "invlpgb or delay_handler differ between two parses");
	FUZZ_CHECK(!memcmp(a->given, b->given, sizeof(a->given)),
		   "given differs between two parses");
}

/* Responder counts: 1..max, no repeats. */
static void check_counts(const struct cmdline_list *l, uint32_t max)
{
	FUZZ_CHECK(l->n <= PARAM_LIST_MAX, "resolved: %u values", l->n);
	for (uint32_t i = 0; i < l->n; i++) {
		FUZZ_CHECK(l->v[i] >= 1 && l->v[i] <= max,
			   "resolved: %u outside 1..%u", l->v[i], max);
		for (uint32_t j = 0; j < i; j++)
			FUZZ_CHECK(l->v[j] != l->v[i], "resolved: %u twice",
				   l->v[i]);
	}
}

/* Counts the diagnostics a call emitted against what it returned. */
#define COUNTED(call)                                                 \
	do {                                                          \
		size_t before_ = diag_count, n_ = (call);             \
		FUZZ_CHECK(n_ == diag_count - before_,                \
			   "%s returned %zu, emitted %zu", #call, n_, \
			   diag_count - before_);                     \
	} while (0)

static void check_format(const struct cmdline_list *l, size_t size)
{
	char big[PARAM_LIST_MAX * 12 + 1], small[256];
	size_t len = params_list_format(l, big, sizeof(big));

	FUZZ_CHECK(len < sizeof(big) && strlen(big) == len,
		   "format: %zu, wrote %zu", len, strlen(big));
	/* A short buffer: the same length reported, a terminated prefix. */
	memset(small, 0x5a, sizeof(small));
	FUZZ_CHECK(params_list_format(l, small, size) == len,
		   "format: length depends on the buffer");
	if (size) {
		size_t kept = len < size ? len : size - 1;

		FUZZ_CHECK(!memcmp(small, big, kept) && small[kept] == '\0',
			   "format: not a terminated prefix in %zu bytes",
			   size);
	}
	FUZZ_CHECK(size == sizeof(small) || small[size] == 0x5a,
		   "format: wrote past %zu bytes", size);
}

static void check_params(const struct bench_params *p, uint32_t responders,
			 size_t fmt_size)
{
	struct cmdline_list resolved;

	/* The lists' items: check_table. */
	FUZZ_CHECK(p->strategies.n > 0, "no strategy (the default is all)");
	FUZZ_CHECK(p->pages.n > 0, "no page count");
	FUZZ_CHECK(p->invlpgb.mode <= PARAM_INVLPGB_FORCE, "mode %d",
		   p->invlpgb.mode);
	FUZZ_CHECK(p->invlpgb.bug <= PARAM_BUG_PCID, "bug %d", p->invlpgb.bug);
	fuzz_check_printable(params_invlpgb_mode_name(p->invlpgb.mode), 32);
	fuzz_check_printable(params_invlpgb_bug_name(p->invlpgb.bug), 32);
	FUZZ_CHECK(p->samples >= 1 && p->samples <= PARAM_SAMPLES_MAX,
		   "samples %llu", (unsigned long long)p->samples);
	FUZZ_CHECK(p->warmup <= PARAM_WARMUP_MAX, "warmup %llu",
		   (unsigned long long)p->warmup);
	FUZZ_CHECK(p->duration_ms >= 1, "duration 0");

	COUNTED(params_resolve_targets(&p->targets, responders, &resolved,
				       &diags));
	check_counts(&resolved, responders);
	FUZZ_CHECK(responders || !resolved.n, "targets without responders");
	FUZZ_CHECK(!responders || resolved.n, "no targets for %u responders",
		   responders);
	check_format(&p->pages, fmt_size);
	check_format(&p->targets, fmt_size);
	check_format(&resolved, fmt_size);
}

/* The list keys and invlpgb= on the raw line: longer than they allow. */
static void raw_parsers(const char *line, size_t fmt_size)
{
	struct param_invlpgb inv;
	struct cmdline_list l;
	struct cmdline_list pl;

	for (size_t i = 0; i < bench_nopts; i++) {
		const struct cmdline_opt *o = &bench_opts[i];
		bool ok;

		if (o->kind != OPT_LIST_UINT && o->kind != OPT_LIST_NAME)
			continue;
		ok = cmdline_parse_list(o, line, &l, &diags);
		FUZZ_CHECK(
			ok == (l.n > 0 || (o->none && !strcmp(line, "none"))),
			"%s: %s with %u items", o->key,
			ok ? "valid" : "rejected", l.n);
		if (ok)
			check_list(o, &l);
		memcpy(&pl, &l, sizeof(pl));
		check_format(&pl, fmt_size);
	}
	COUNTED(params_parse_invlpgb(line, &inv, &diags));
	FUZZ_CHECK(inv.mode <= PARAM_INVLPGB_FORCE && inv.bug <= PARAM_BUG_PCID,
		   "invlpgb %d,%d", inv.mode, inv.bug);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct config cfg, again;
	static struct bench_params p, p2;
	static struct cmdline_diags cd, cd2;
	const struct cmdline_table bt = bench_options(&p);
	const struct cmdline_table bt2 = bench_options(&p2);
	const struct cmdline_table kt = {config_opts, config_nopts, &cfg,
					 cfg.given};
	struct fuzz_in in = {data, size};
	uint32_t responders = fuzz_u8(&in);
	size_t fmt_size = fuzz_u8(&in), len, n;
	const uint8_t *text = fuzz_bytes(&in, in.n, &len);
	char *line = malloc(len + 1);

	FUZZ_CHECK(line, "out of memory");
	memcpy(line, text, len);
	line[len] = '\0';

	memset(&cfg, 0x5a, sizeof(cfg));
	memset(&p, 0x5a, sizeof(p));
	memset(&cd, 0x5a, sizeof(cd));
	n = config_parse(line, &cfg, &bt, 1, &cd);
	FUZZ_CHECK(n == cd.count + cd.folded + cd.dropped,
		   "returned %zu, %zu + %zu + %zu", n, cd.count, cd.folded,
		   cd.dropped);
	FUZZ_CHECK(cd.count <= CMDLINE_DIAG_MAX, "%zu diagnostics", cd.count);
	FUZZ_CHECK(!(cd.folded + cd.dropped) || cd.count == CMDLINE_DIAG_MAX,
		   "folded %zu, dropped %zu with room left", cd.folded,
		   cd.dropped);
	{
		struct cmdline_fold_pos pos = {0, 0};
		char fl[CMDLINE_DIAG_LEN];

		while (cmdline_fold_next(&cd, &pos, fl, sizeof(fl)))
			fuzz_check_printable(fl, sizeof(fl));
	}
	for (size_t i = 0; i < cd.count; i++)
		fuzz_check_printable(cd.msg[i], CMDLINE_DIAG_LEN);
	check_table(&kt, line);
	check_table(&bt, line);
	check_config(&cfg);

	/* Nothing may depend on what the structs held before. */
	memset(&again, 0xa5, sizeof(again));
	memset(&p2, 0xa5, sizeof(p2));
	memset(&cd2, 0xa5, sizeof(cd2));
	config_parse(line, &again, &bt2, 1, &cd2);
	same_config(&cfg, &again);
	same_params(&p, &p2);
	FUZZ_CHECK(cd.count == cd2.count && cd.folded == cd2.folded &&
			   cd.dropped == cd2.dropped,
		   "diagnostics differ between two parses");
	check_params(&p, responders, fmt_size);
	raw_parsers(line, fmt_size);
	free(line);
	return 0;
}
