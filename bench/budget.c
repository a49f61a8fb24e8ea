// SPDX-License-Identifier: MIT
/*
 * The time budget in the running kernel (bench/budget.h): just before the
 * experiments, the costs that the plan rests on are measured on this
 * machine (bench/budget_costs.c) and each experiment says what it will run
 * (its struct experiment hooks); the plan is printed before they run, and
 * what they took after.
 */
#include "bench/budget.h"
#include "bench/budget_costs.h"
#include "bench/bench.h"
#include "bench/shootdown_sweep.h"
#include "kernel/report.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "lib/printf.h"
#include "mm/layout.h"
#include "smp/smp.h"

static struct plan plan;
static struct plan_costs costs;
/* The default suite on the 192-CPU server, from these costs. */
static struct plan server;
static struct plan_costs server_costs;
static uint64_t server_uncut_ms;
static uint64_t actual[PLAN_EXPS];
static uint64_t configured_samples, configured_cold_mb, configured_fl_ms;
static uint64_t configured_hot_pages;
static uint32_t configured_ntargets;

/*
 * Each experiment's part of the plan, from its own hooks, in table order:
 * a pilot runs right after its experiment's shape, so that what it leaves
 * set up (shootdown's pages) is there when the next one sizes itself, as
 * when the experiments run.
 */
static void fill(const struct bench_params *p, const bool run[PLAN_EXPS],
		 struct bench_ctx *ctx)
{
	plan = (struct plan){.budget_ms = p->budget_s * 1000};
	for (int e = 0; e < PLAN_EXPS; e++)
		plan.run[e] = run[e];
	/* Alone, shootdown and reclaim only say that they need 2 cpus. */
	if (!costs.responders)
		plan.run[PLAN_SHOOTDOWN] = plan.run[PLAN_RECLAIM] = false;
	for (int e = 0; e < PLAN_EXPS; e++) {
		const struct experiment *x = &experiments[e];

		if (x->plan_shape)
			x->plan_shape(p, ctx, &costs, &plan);
		if (x->pilot && plan.run[e] && plan.budget_ms)
			x->pilot(p, ctx, &plan);
	}
}

/* The plan into the sizes the experiments run with. */
static void apply(struct bench_sizes *s)
{
	s->sd_samples = plan.sd.samples;
	s->sd_warmup = plan.sd.warmup;
	/* Only when thinned: shootdown_run() reports the user's own list. */
	if (plan.sd.ntargets < configured_ntargets) {
		s->sd_targets.n = plan.sd.ntargets;
		for (uint32_t i = 0; i < plan.sd.ntargets; i++)
			s->sd_targets.v[i] = plan.sd.targets[i];
	}
	/* Sizes from free RAM stay so unless the plan cut them. */
	if (plan.rc.cold_pages / 256 < configured_cold_mb)
		s->reclaim_mb = plan.rc.cold_pages / 256;
	if (plan.rc.hot_pages < configured_hot_pages)
		s->hot_mb = (plan.rc.hot_pages + 255) / 256;
	s->flushloop_ms = plan.fl.duration_ms;
}

/*
 * Prints one line and returns its cost a byte on the console ("INFO: "
 * and the line break included), or 0.
 */
static uint64_t timed_line(const char *line, int n)
{
	uint64_t t0 = rdtsc_ordered();

	report_info("%s", line);
	return n > 0 ? (rdtsc_ordered() - t0) / ((uint64_t)n + 8) : 0;
}

/*
 * The costs measured, on two lines, each timed: the console's cost a
 * byte is the cheaper one's. Under TCG the first line after the busy
 * readers stop cost twice the second (their vCPUs still ran), and a
 * plan that took it overestimated a QEMU run by 2-3 times.
 */
static void print_costs(void)
{
	char line[256];
	uint64_t a, b;
	int n;

	n = ksnprintf(line, sizeof(line),
		      "bench: measured here: IPI round trip %llu ns to 1 cpu, "
		      "%llu ns to %u (%llu ns while they read memory)",
		      (unsigned long long)tsc_to_ns(costs.ipi_one),
		      (unsigned long long)tsc_to_ns(costs.ipi_all),
		      costs.responders,
		      (unsigned long long)tsc_to_ns(costs.ipi_all_busy));
	a = timed_line(line, n);
	n = ksnprintf(line, sizeof(line),
		      "bench: measured here: TLB-missing read %llu ns; CR3 "
		      "reload %llu ns, INVLPG %llu ns, page copy %llu ns",
		      (unsigned long long)tsc_to_ns(costs.touch),
		      (unsigned long long)tsc_to_ns(costs.cr3),
		      (unsigned long long)tsc_to_ns(costs.invlpg),
		      (unsigned long long)tsc_to_ns(costs.page_copy));
	b = timed_line(line, n);
	costs.console_byte = a && (!b || a < b) ? a : b;
}

/*
 * The server: every distance class, INVLPGB, 512 GiB of RAM (reclaim's
 * default sizes: a third of it up to 20 GiB cold, a sixth shared by the
 * workers hot), planned for this run's budget.
 */
static void estimate_server(void)
{
	uint64_t mem = 512ull << 30, workers = PLAN_SERVER_CPUS - 1;
	struct plan_machine m = {
		.cpus = PLAN_SERVER_CPUS,
		.classes = TOPO_CLASSES - TOPO_SMT_SIBLING,
		.invlpgb = true,
		.cold_pages = (20ull << 30) / PAGE_SIZE,
		.hot_pages = mem / 6 / workers / PAGE_SIZE,
	};

	plan_costs_at(&costs, PLAN_SERVER_CPUS, &server_costs);
	plan_default_suite(&m, &server_costs, plan.budget_ms, &server,
			   &server_uncut_ms);
	report_info("bench: plan: on paper, the default suite at %u cpus: "
		    "%llu ms in a %llu s budget%s (%llu ms uncut); this "
		    "machine's costs, an IPI round to %u cpus %llu ns "
		    "(extrapolated linearly from 1 and %u responders here)",
		    PLAN_SERVER_CPUS, (unsigned long long)server.total_ms,
		    (unsigned long long)(plan.budget_ms / 1000),
		    server.fits ? "" : ", over it",
		    (unsigned long long)server_uncut_ms, PLAN_SERVER_CPUS - 1,
		    (unsigned long long)tsc_to_ns(server_costs.ipi_all),
		    costs.responders);
}

static void server_record(struct record *r)
{
	json_begin_object(&r->j, "server_estimate");
	json_u64(&r->j, "cpus", PLAN_SERVER_CPUS);
	json_u64(&r->j, "planned_ms", server.total_ms);
	json_u64(&r->j, "uncut_ms", server_uncut_ms);
	json_bool(&r->j, "fits", server.fits);
	json_u64(&r->j, "ipi_all_ns", tsc_to_ns(server_costs.ipi_all));
	json_begin_object(&r->j, "planned_ms_by_bench");
	for (int e = 0; e < PLAN_EXPS; e++)
		json_u64(&r->j, plan_exp_name((enum plan_exp)e),
			 server.est_ms[e]);
	json_end_object(&r->j);
	json_end_object(&r->j);
}

static void u32_array(struct json *j, const char *key, const uint32_t *v,
		      uint32_t n)
{
	json_begin_array(j, key);
	for (uint32_t i = 0; i < n && i < PLAN_LIST_MAX; i++)
		json_u64(j, NULL, v[i]);
	json_end_array(j);
}

static void shootdown_runs(struct json *j, const struct bench_params *p)
{
	json_begin_object(j, "shootdown");
	json_begin_array(j, "strategies");
	for (uint32_t i = 0; i < p->strategies.n; i++) {
		enum strategy s = (enum strategy)p->strategies.v[i];

		if ((s == S_INVLPGB && !plan.sd.invlpgb) ||
		    (s == S_INVLPGB_LINUX && !plan.sd.invlpgb_linux))
			continue;
		json_str(j, NULL, strategy_names[s]);
		if (shootdown_global_name(s))
			json_str(j, NULL, shootdown_global_name(s));
	}
	json_end_array(j);
	u32_array(j, "pages", plan.sd.pages, plan.sd.npages);
	u32_array(j, "targets", plan.sd.targets, plan.sd.ntargets);
	json_end_object(j);
}

/*
 * What each experiment will run, as its records will name it, for a
 * reader to check that every planned run has its record.
 */
static void runs_record(struct json *j, const struct bench_params *p)
{
	json_begin_object(j, "runs");
	if (plan.run[PLAN_SHOOTDOWN])
		shootdown_runs(j, p);
	if (plan.run[PLAN_RECLAIM]) {
		json_begin_array(j, "reclaim");
		for (uint32_t i = 0; i < plan.rc.nruns; i++) {
			json_begin_object(j, NULL);
			json_str(j, "strategy", plan.rc.run_names[i]);
			json_u64(j, "batch", plan.rc.run_batches[i]);
			json_end_object(j);
		}
		json_end_array(j);
	}
	if (plan.run[PLAN_FLUSHLOOP]) {
		json_begin_object(j, "flushloop");
		json_begin_array(j, "strategies");
		for (uint32_t i = 0; i < plan.fl.strategies; i++)
			json_str(j, NULL, plan.fl.names[i]);
		json_end_array(j);
		u32_array(j, "cpus", plan.fl.cpus, plan.fl.cpu_counts);
		json_end_object(j);
	}
	json_end_object(j);
}

static void plan_record(const struct bench_params *p)
{
	/* static: with the runs and 8 notes, more than a stack frame's share */
	static char buf[4096];
	struct record r;

	record_begin(&r, buf, sizeof(buf), "plan");
	json_u64(&r.j, "budget_s", plan.budget_ms / 1000);
	json_u64(&r.j, "planned_ms", plan.total_ms);
	json_bool(&r.j, "fits", plan.fits);
	json_begin_object(&r.j, "costs_ns");
	json_u64(&r.j, "ipi_one", tsc_to_ns(costs.ipi_one));
	json_u64(&r.j, "ipi_all", tsc_to_ns(costs.ipi_all));
	json_u64(&r.j, "ipi_all_busy", tsc_to_ns(costs.ipi_all_busy));
	json_u64(&r.j, "touch", tsc_to_ns(costs.touch));
	json_u64(&r.j, "cr3", tsc_to_ns(costs.cr3));
	json_u64(&r.j, "invlpg", tsc_to_ns(costs.invlpg));
	json_u64(&r.j, "page_copy", tsc_to_ns(costs.page_copy));
	json_u64(&r.j, "console_byte", tsc_to_ns(costs.console_byte));
	json_end_object(&r.j);
	/* What the pilots measured: per sample of every variant, per page. */
	json_begin_object(&r.j, "pilot_ns");
	json_u64(&r.j, "shootdown_1_fewest", tsc_to_ns(plan.sd.pilot[0][0]));
	json_u64(&r.j, "shootdown_1_most", tsc_to_ns(plan.sd.pilot[0][1]));
	json_u64(&r.j, "shootdown_all_fewest", tsc_to_ns(plan.sd.pilot[1][0]));
	json_u64(&r.j, "shootdown_all_most", tsc_to_ns(plan.sd.pilot[1][1]));
	json_u64(&r.j, "reclaim_page", tsc_to_ns(plan.rc.pilot_page));
	json_u64(&r.j, "reclaim_batched_page", tsc_to_ns(plan.rc.pilot_batch));
	json_u64(&r.j, "reclaim_setup_page", tsc_to_ns(plan.rc.pilot_setup));
	json_end_object(&r.j);
	json_begin_object(&r.j, "planned_ms_by_bench");
	for (int e = 0; e < PLAN_EXPS; e++)
		if (plan.run[e])
			json_u64(&r.j, plan_exp_name((enum plan_exp)e),
				 plan.est_ms[e]);
	json_end_object(&r.j);
	json_u64(&r.j, "samples", plan.sd.samples);
	json_u64(&r.j, "samples_configured", configured_samples);
	json_u64(&r.j, "warmup", plan.sd.warmup);
	json_u64(&r.j, "targets", plan.sd.ntargets);
	json_u64(&r.j, "reclaim_mb", plan.rc.cold_pages / 256);
	json_u64(&r.j, "reclaim_mb_configured", configured_cold_mb);
	json_u64(&r.j, "flushloop_ms", plan.fl.duration_ms);
	json_u64(&r.j, "flushloop_ms_configured", configured_fl_ms);
	json_begin_array(&r.j, "notes");
	for (size_t i = 0; i < plan.nnotes; i++)
		json_str(&r.j, NULL, plan.notes[i]);
	json_end_array(&r.j);
	runs_record(&r.j, p);
	if (costs.tsc_khz)
		server_record(&r);
	record_end(&r);
}

void budget_plan(const struct bench_params *p, const bool run[PLAN_EXPS],
		 struct bench_ctx *ctx)
{
	budget_measure_costs(ctx->records.overhead, &costs);
	/*
	 * What the experiments print costs time too: 1-3 us a byte under
	 * QEMU, 87 us on a UART at 115200 baud (a server's serial port,
	 * Bochs), where the records were half of the default suite's time.
	 */
	print_costs();
	fill(p, run, ctx);
	configured_samples = plan.sd.samples;
	configured_cold_mb = plan.rc.cold_pages / 256;
	configured_hot_pages = plan.rc.hot_pages;
	configured_ntargets = plan.sd.ntargets;
	configured_fl_ms = plan.fl.duration_ms;
	plan_make(&plan, &costs);
	apply(&ctx->size);
	if (!plan.budget_ms)
		report_info("bench: plan: no budget (budget_s=0): %llu ms "
			    "estimated, sizes as configured",
			    (unsigned long long)plan.total_ms);
	else
		report_info("bench: plan: %llu ms estimated for a budget of "
			    "%llu s%s",
			    (unsigned long long)plan.total_ms,
			    (unsigned long long)(plan.budget_ms / 1000),
			    plan.nnotes ? "; reduced:" : "");
	for (size_t i = 0; i < plan.nnotes; i++)
		report_info("bench: plan: %s", plan.notes[i]);
	if (costs.tsc_khz)
		estimate_server();
	plan_record(p);
}

void budget_account(enum plan_exp e, uint64_t cycles)
{
	actual[e] = cycles;
	report_info("bench: %s took %llu ms (planned %llu ms)",
		    plan_exp_name(e),
		    (unsigned long long)(tsc_to_ns(cycles) / 1000000),
		    (unsigned long long)plan.est_ms[e]);
}

void budget_report(void)
{
	char buf[1024];
	struct record r;
	uint64_t total = 0;

	record_begin(&r, buf, sizeof(buf), "budget");
	json_u64(&r.j, "budget_s", plan.budget_ms / 1000);
	json_u64(&r.j, "planned_ms", plan.total_ms);
	json_begin_object(&r.j, "actual_ms_by_bench");
	for (int e = 0; e < PLAN_EXPS; e++) {
		if (!plan.run[e])
			continue;
		total += tsc_to_ns(actual[e]) / 1000000;
		json_u64(&r.j, plan_exp_name((enum plan_exp)e),
			 tsc_to_ns(actual[e]) / 1000000);
	}
	json_end_object(&r.j);
	json_u64(&r.j, "actual_ms", total);
	json_bool(&r.j, "fit", !plan.budget_ms || total <= plan.budget_ms);
	record_end(&r);
	if (plan.budget_ms)
		report_info("bench: the experiments took %llu ms of a %llu s "
			    "budget: %s",
			    (unsigned long long)total,
			    (unsigned long long)(plan.budget_ms / 1000),
			    total <= plan.budget_ms ? "fit" : "over budget");
}
