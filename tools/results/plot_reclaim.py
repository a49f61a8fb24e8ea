"""The reclaim figures of plots.py: the workers' throughput around each
page-out (from the timeline records, or the tick records of a log that
has none).

The timeline figure puts every strategy on one real time axis: the
milliseconds since its own page-out began, read from the `time` series
(what each bin really spans, from the TSC, in microseconds), so that a
page-out 50 times shorter than another is drawn 50 times shorter. Each
strategy's throughput is divided by its own rate in the window before
its page-out (the same ratio estimator as the loss: the window's reads
over its time), because the strategies' baselines differ between passes
(under TCG by 5x) and a loss is a share of one's own baseline. Each
strategy gets a strip of its own (a shared axis of six noisy curves
hides them all), its page-out shaded in its colour and its length
written beside it, outside the curves; a legend is not needed.
"""

import math

import caveats
import timeline
from plot_base import DPI, FIG_INCHES, label, new_figure, strategies

# A strip's y axis: relative throughput from 0 to at most this (values
# above are clipped, and the axis label says so).
Y_CAP = 3.0


def strategy_rate(records, tick):
    """The pages/s of the reclaim result that closes tick's strategy run:
    the first reclaim result of that strategy after the tick."""
    for rec in records:
        if rec.get("seq", -1) > tick.get("seq", -1) and rec.get("type") == "result" and \
                rec.get("bench") == "reclaim" and rec.get("strategy") == tick.get("strategy"):
            return rec.get("reclaim_pages_per_s")
    return None


def tick_rates(records):
    """(seconds, worker reads per second, strategy) per reclaim tick.

    A tick's reads are counted since the previous tick, or since its
    strategy's paging out began if that is later (docs/records.md). For the
    first tick of a strategy that start is not printed; it is estimated
    from the pages paged out so far at the strategy's pages/s (its result
    record), and the tick is left out when that cannot be done."""
    ticks = [r for r in records if r.get("type") == "tick" and r.get("bench") == "reclaim"]
    out, prev = [], None
    for t in ticks:
        dt = t["t_ms"] - (prev["t_ms"] if prev else 0)
        if prev is None or prev.get("strategy") != t.get("strategy"):
            rate = strategy_rate(records, t)
            if not rate or not t.get("pages"):
                prev = t
                continue
            dt = min(dt, t["pages"] * 1000.0 / rate)
        prev = t
        if dt > 0 and isinstance(t.get("reads"), list):
            out.append((t["t_ms"] / 1000.0, sum(t["reads"]) * 1000.0 / dt, t.get("strategy")))
    return out


def reclaim_title(runs, text):
    """text, and under it why the loss is not the hardware's (the runs'
    worker_loss caveats): where the CPUs take turns, what that means for
    a loss in particular."""
    why = caveats.union(runs, "worker_loss")
    if any(tag == "CPUs take turns" for tag, _ in why):
        return text + "\n" + caveats.NOT_HARDWARE + "the CPUs take turns (env " \
            "cpus_concurrent): this loss is the host's time-sharing, not the TLB's cost"
    line = caveats.figure_line(runs, "worker_loss")
    return text + ("\n" + line if line else "")


def fig_reclaim_ticks(plt, run):
    """Worker throughput over time from the reclaim tick records, coloured
    by the strategy paging out at that moment."""
    rates = tick_rates(run.records)
    if not rates:
        return None, "no reclaim tick records"
    fig, axes = new_figure(plt)
    ax = axes[0]
    ax.plot([r[0] for r in rates], [r[1] for r in rates], color="0.7", zorder=1)
    for s in strategies([{"strategy": r[2]} for r in rates]):
        pts = [r for r in rates if r[2] == s]
        ax.scatter([r[0] for r in pts], [r[1] for r in pts], label=s, zorder=2)
    label(ax, "time since reclaim began (s)", "worker reads per second (first 8 workers)", "")
    fig.suptitle(reclaim_title([run], "reclaim: worker throughput while paging out "
                                      "(tick records)"), fontsize="medium")
    return fig, None


def relative_points(tl):
    """(ms since the page-out began, throughput / the rate before) for
    every timed bin of tl, each at its middle; ([], []) where the window
    before counted no reads. A bin no snapshot closed (time 0, no counts)
    is left out: the next bin's time covers it."""
    lo, hi = tl.window("before")
    base_t = sum(tl.time_us[lo:hi])
    base = sum(tl.total[lo:hi]) / base_t if base_t else 0
    if not base:
        return [], []
    xs, ys, t = [], [], -base_t
    for reads, us in zip(tl.total, tl.time_us):
        if us:
            xs.append((t + us / 2.0) / 1000.0)
            ys.append(reads / us / base)
        t += us
    return xs, ys


def y_limit(values):
    """The strips' shared top: the 98th percentile with a margin, between
    1.5 and Y_CAP, so that one spike does not flatten every curve."""
    if not values:
        return 1.5
    ordered = sorted(values)
    q = ordered[min(len(ordered) - 1, int(0.98 * len(ordered)))]
    return max(1.5, min(Y_CAP, math.ceil(q * 1.1 * 2) / 2))


def strip_label(name, tls):
    """A strip's label: the strategy and its page-out's length (the first
    run's; the range where several runs differ)."""
    ms = sorted(tl.pageout_us / 1000.0 for tl in tls if isinstance(tl.pageout_us, int))
    if not ms:
        return name
    span = f"{ms[0]:.0f} ms" if ms[-1] - ms[0] < 1 else f"{ms[0]:.0f}-{ms[-1]:.0f} ms"
    return f"{name}\npage-out\n{span}"


def draw_strip(ax, tls, colour):
    """One strategy's strip: each run's relative throughput (the first
    run's strongest) over its page-out, shaded in colour; returns the y
    values drawn."""
    drawn = []
    for i, tl in enumerate(tls):
        xs, ys = relative_points(tl)
        if isinstance(tl.pageout_us, int):
            ax.axvspan(0, tl.pageout_us / 1000.0, color=colour, alpha=0.15, linewidth=0)
        ax.plot(xs, ys, color=colour, linewidth=1.0 if i == 0 else 0.6,
                alpha=1.0 if i == 0 else 0.45)
        drawn += ys
    ax.axhline(1.0, color="0.4", linewidth=0.7, linestyle="--")
    return drawn


def loss_panel(lax, runs, labels, colours):
    """Each strategy's loss during its page-out with its 95% interval (and
    after it: x), a point per run."""
    width = 0.8 / max(1, len(runs))
    for i, run in enumerate(runs):
        tls = {tl.label: timeline.result_for(run, tl) for tl in timeline.all_timelines(run)}
        for j, name in enumerate(labels):
            res = tls.get(name)
            if not res or res.get("worker_loss_pct") is None:
                continue
            x, y = j - 0.4 + width * (i + 0.5), res["worker_loss_pct"]
            lo, hi = res.get("worker_loss_lo_pct"), res.get("worker_loss_hi_pct")
            err = [[y - lo], [hi - y]] if lo is not None and hi is not None else None
            lax.errorbar([x], [y], yerr=err, fmt="o", color=colours[name], capsize=3,
                         alpha=1.0 if i == 0 else 0.6)
            after = res.get("worker_after_loss_pct")
            if after is not None:
                lax.plot([x], [after], marker="x", color=colours[name], linestyle="none",
                         alpha=1.0 if i == 0 else 0.6)
    lax.axhline(0, color="0.5", linewidth=0.8)
    lax.set_xticks(range(len(labels)))
    lax.set_xticklabels(labels, rotation=30, ha="right", fontsize="small")
    label(lax, "strategy and batch", "worker loss during the page-out (%)",
          "loss, 95% interval over bins (x: after)", legend=False, axis="y")


def fig_reclaim_bins(plt, runs):
    """Each strategy's worker throughput relative to its own rate before
    its page-out, on the time axis of the page-outs (a strip each), and
    each strategy's loss with its 95% interval; several runs overlaid (the
    first drawn strongest)."""
    by_label = {}
    for run in runs:
        for tl in timeline.all_timelines(run):
            by_label.setdefault(tl.label, []).append(tl)
    labels = list(by_label)
    colours = {name: f"C{i % 10}" for i, name in enumerate(labels)}
    fig = plt.figure(figsize=FIG_INCHES, dpi=DPI, layout="constrained")
    grid = fig.add_gridspec(len(labels), 2, width_ratios=[3, 2])
    strips, values = [], []
    for i, name in enumerate(labels):
        ax = fig.add_subplot(grid[i, 0], sharex=strips[0] if strips else None,
                             sharey=strips[0] if strips else None)
        values += draw_strip(ax, by_label[name], colours[name])
        ax.set_ylabel(strip_label(name, by_label[name]), rotation=0, ha="right",
                      va="center", fontsize="x-small", color=colours[name])
        ax.tick_params(labelsize="x-small")
        ax.grid(True, alpha=0.3)
        if i < len(labels) - 1:
            ax.tick_params(labelbottom=False)
        strips.append(ax)
    top = y_limit(values)
    strips[0].set_ylim(0, top)
    strips[0].set_yticks([0, 1] + ([2] if top >= 2.5 else []))
    strips[-1].set_xlabel("time since the strategy's page-out began (ms; shaded: the "
                          "page-out)")
    clipped = " (clipped)" if values and max(values) > top else ""
    fig.supylabel("worker reads per second / its own rate before the page-out" + clipped,
                  fontsize="small")
    loss_panel(fig.add_subplot(grid[:, 1]), runs, labels, colours)
    runs_txt = f"{len(runs)} run{'s' if len(runs) != 1 else ''}"
    fig.suptitle(reclaim_title(runs, f"reclaim: workers before, during and after paging "
                                     f"out ({runs_txt}; 1 = the rate before)"),
                 fontsize="medium")
    return fig, None


def fig_reclaim_timeline(plt, run, others=()):
    """The seed's figure from the timeline records (timeline.py), or from
    the tick records of a log that has none. A Linux-side run among them
    (docs/linux.md) gets a strip of its own, "Linux MADV_PAGEOUT", beside
    the harness's strategies."""
    if timeline.all_timelines(run):
        return fig_reclaim_bins(plt, [run] + [r for r in others if timeline.all_timelines(r)])
    return fig_reclaim_ticks(plt, run)
