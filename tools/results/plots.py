"""Figures of one run, and a page that puts them with its tables and env.

Each figure is drawn by a small function that takes the Run and returns a
matplotlib Figure, or None with a reason when the run has nothing for it
(a run with bench=shootdown has no reclaim timeline). Every figure is
saved as PNG and SVG at a fixed size (FIG_INCHES at DPI: 960x600 pixels)
and described in manifest.json: its files, size, and each axes' title,
labels and scales, read back from the figure objects, so that tests can
check what was drawn without looking at pixels. index.html shows them
with the tables and the env; it needs nothing but a browser.

matplotlib is imported lazily with the Agg backend (no display needed):
the other subcommands must work where it is not installed.
"""

import html
import json
import os
import sys

import answer
import caveats
import timeline
from tables import format_table, irqs_per_gib, run_tables
from runs import env_summary

FIG_INCHES = (9.6, 6.0)
DPI = 100
DEBIAN_PYTHON = "/usr/bin/python3"
REEXEC_ENV = "SHOOTDOWN_PLOT_REEXEC"


class MissingMatplotlib(Exception):
    """matplotlib cannot be imported (exit status 2, naming the package)."""


def import_pyplot(allow_reexec=False):
    """matplotlib.pyplot on the Agg backend.

    Debian's python3-matplotlib is installed for Debian's python3; when
    another python3 comes first in PATH (pyenv, a virtualenv) it cannot
    import it. With allow_reexec (the command line, not a library caller)
    the command then runs itself again under /usr/bin/python3, once."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        pass
    here = os.path.realpath(sys.executable or "")
    if allow_reexec and not os.environ.get(REEXEC_ENV) and \
            os.access(DEBIAN_PYTHON, os.X_OK) and here != os.path.realpath(DEBIAN_PYTHON):
        os.environ[REEXEC_ENV] = "1"
        os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON] + sys.argv)
    raise MissingMatplotlib("matplotlib is not installed for " + (sys.executable or "python3")
                            + ": run tools/install-deps.sh (Debian package "
                            "python3-matplotlib)")


def new_figure(plt, ncols=1):
    """A figure of the fixed size with ncols axes side by side."""
    fig, axes = plt.subplots(1, ncols, figsize=FIG_INCHES, dpi=DPI, squeeze=False,
                             layout="constrained")
    return fig, list(axes[0])


def ns_unit(records):
    """'ns' when every record has ns figures, else 'cycles'."""
    return "ns" if all(r.get("ns_p50") is not None for r in records) else "cycles"


def stat(rec, name, unit):
    """A statistic in the unit chosen for the figure."""
    return rec.get("ns_" + name) if unit == "ns" else rec.get(name)


def first_per(records, fields):
    """The first record of each combination of fields: the main sweep's
    1-target rows, not the distance sweep's repeats."""
    seen = {}
    for r in records:
        seen.setdefault(tuple(r.get(f) for f in fields), r)
    return list(seen.values())


def unicast(records):
    """Records of one IPI mode per configuration: unicast (or none, as
    INVLPGB's)."""
    return [r for r in records if r.get("ipi_mode") in (None, "unicast")]


def strategies(records):
    """The strategies present, in first-seen order."""
    out = []
    for r in records:
        if r.get("strategy") not in out:
            out.append(r.get("strategy"))
    return out


def label(ax, xlabel, ylabel, title, legend=True, **grid):
    """A one-panel figure's axis labels, title, legend and grid."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if legend:
        ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3, **grid)


def fig_shootdown_pages(plt, run):
    """Latency vs pages per strategy, log-log, p50 with a p90-p99 band,
    one panel per responder count (at most 3: fewest, middle, most)."""
    recs = first_per(unicast(run.results("shootdown")), ("strategy", "targets", "pages"))
    recs = [r for r in recs if r.get("samples") and isinstance(r.get("pages"), int)]
    if not recs:
        return None, "no shootdown records"
    unit = ns_unit(recs)
    targets = sorted({r.get("targets") for r in recs})
    if len(targets) > 3:
        targets = [targets[0], targets[len(targets) // 2], targets[-1]]
    fig, axes = new_figure(plt, len(targets))
    for ax, t in zip(axes, targets):
        for s in strategies(recs):
            pts = sorted((r for r in recs if r["strategy"] == s and r.get("targets") == t),
                         key=lambda r: r["pages"])
            if not pts:
                continue
            x = [r["pages"] for r in pts]
            line, = ax.plot(x, [stat(r, "p50", unit) for r in pts], marker="o", label=s)
            ax.fill_between(x, [stat(r, "p90", unit) for r in pts],
                            [stat(r, "p99", unit) for r in pts], alpha=0.2,
                            color=line.get_color())
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"{t} target{'s' if t != 1 else ''}")
        ax.set_xlabel("pages per invalidation")
        ax.set_ylabel(f"initiator latency ({unit})")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize="small")
    fig.suptitle("shootdown: latency vs pages (p50; band p90-p99; unicast)")
    return fig, None


def fig_shootdown_targets(plt, run):
    """Latency vs responders per strategy, at the fewest and most pages;
    broadcast rounds (all responders) as open markers."""
    recs = first_per(run.results("shootdown"), ("strategy", "ipi_mode", "targets", "pages"))
    recs = [r for r in recs if r.get("samples") and isinstance(r.get("targets"), int)]
    if not recs:
        return None, "no shootdown records"
    unit = ns_unit(recs)
    pages = sorted({r.get("pages") for r in recs})
    pages = [pages[0], pages[-1]] if len(pages) > 1 else pages
    fig, axes = new_figure(plt, len(pages))
    for ax, p in zip(axes, pages):
        for s in strategies(recs):
            uni = sorted((r for r in unicast(recs) if r["strategy"] == s and r["pages"] == p),
                         key=lambda r: r["targets"])
            if uni:
                line, = ax.plot([r["targets"] for r in uni],
                                [stat(r, "p50", unit) for r in uni], marker="o", label=s)
                bc = [r for r in recs if r["strategy"] == s and r["pages"] == p and
                      r.get("ipi_mode") == "broadcast"]
                if bc:
                    ax.plot([r["targets"] for r in bc], [stat(r, "p50", unit) for r in bc],
                            marker="s", linestyle="none", fillstyle="none",
                            color=line.get_color())
        ax.set_yscale("log")
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.set_title(f"{p} page{'s' if p != 1 else ''}")
        ax.set_xlabel("responders (targets)")
        ax.set_ylabel(f"initiator latency p50 ({unit})")
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize="small")
    fig.suptitle("shootdown: latency vs responders (open squares: broadcast)")
    return fig, None


def fig_distance(plt, run):
    """One responder by topology distance class: shootdown at 1 page per
    strategy, and primitives' round trips, as grouped bars."""
    recs = [r for r in run.results("shootdown") if r.get("distance") and
            r.get("pages") == min((x.get("pages") for x in run.results("shootdown")),
                                  default=1) and r.get("targets") == 1]
    recs = unicast(recs) + [r for r in run.results("primitives")
                            if r.get("distance") and r.get("samples")]
    if not recs:
        return None, "no records with a distance class"
    unit = ns_unit(recs)
    classes = []
    for r in recs:
        if r["distance"] not in classes:
            classes.append(r["distance"])
    names = strategies(recs)
    fig, axes = new_figure(plt)
    ax = axes[0]
    width = 0.8 / max(1, len(names))
    for i, s in enumerate(names):
        xs, ys = [], []
        for j, c in enumerate(classes):
            match = [r for r in recs if r["strategy"] == s and r["distance"] == c]
            if match:
                xs.append(j + i * width)
                ys.append(stat(match[0], "p50", unit))
        ax.bar(xs, ys, width=width, label=s)
    ax.set_xticks([j + width * (len(names) - 1) / 2 for j in range(len(classes))])
    ax.set_xticklabels(classes)
    ax.set_yscale("log")
    label(ax, "distance class of the responder from cpu 0", f"p50 ({unit})",
          "one responder by distance: shootdown (fewest pages) and round trips",
          axis="y")
    return fig, None


def fig_flushloop(plt, run):
    """ops/s vs CPUs per strategy, with the linear-scaling line from each
    strategy's 1-CPU rate."""
    recs = [r for r in run.results("flushloop") if isinstance(r.get("ops_per_s"), int)]
    if not recs:
        return None, "no flushloop records"
    fig, axes = new_figure(plt)
    ax = axes[0]
    for s in strategies(recs):
        pts = sorted((r for r in recs if r["strategy"] == s), key=lambda r: r["cpus"])
        x = [r["cpus"] for r in pts]
        line, = ax.plot(x, [r["ops_per_s"] for r in pts], marker="o", label=s)
        one = [r["ops_per_s"] for r in pts if r["cpus"] == 1]
        if one:
            ax.plot(x, [one[0] * c for c in x], linestyle="--", color=line.get_color(),
                    alpha=0.6, label=f"{s}: linear scaling")
    ax.xaxis.get_major_locator().set_params(integer=True)
    label(ax, "cpus in the loop", "operations per second (all cpus)",
          "flushloop: unmap + flush + remap throughput")
    return fig, None


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
    strategy's paging out began if that is later (docs/output.md). For the
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


def fig_reclaim_timeline(plt, run, others=()):
    """The seed's figure from the timeline records (timeline.py), or from
    the tick records of a log that has none."""
    if timeline.timelines(run):
        return fig_reclaim_bins(plt, [run] + [r for r in others if timeline.timelines(r)])
    return fig_reclaim_ticks(plt, run)


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
    label(ax, "time since reclaim began (s)", "worker reads per second (first 8 workers)",
          "reclaim: worker throughput while paging out (tick records)")
    return fig, None


def window_x(tl):
    """Each bin's x on the figure's axis: the window before in [-1, 0] (its
    own time), the page-out in [0, 1] (a share of its length), the window
    after in [1, 2]; so that passes of any length line up."""
    xs, t = [], 0
    for name, (lo, hi) in ((w, tl.window(w)) for w in timeline.WINDOWS):
        span = sum(tl.time_us[lo:hi]) or 1
        t = 0
        for us in tl.time_us[lo:hi]:
            mid = (t + us / 2.0) / span
            xs.append({"before": mid - 1, "during": mid, "after": 1 + mid}[name])
            t += us
    return xs


def fig_reclaim_bins(plt, runs):
    """Worker reads per second against time, before / during / after the
    page-out, every strategy on one axis (the page-out shaded), and each
    strategy's loss with its 95% interval; several runs overlaid (the
    first drawn strongest)."""
    fig, axes = plt.subplots(1, 2, figsize=FIG_INCHES, dpi=DPI, layout="constrained",
                             gridspec_kw={"width_ratios": [3, 2]})
    ax, lax = axes
    colours, labels = {}, []
    for i, run in enumerate(runs):
        for tl in timeline.timelines(run):
            if tl.label not in colours:
                colours[tl.label] = f"C{len(colours) % 10}"
                labels.append(tl.label)
            ys = [r if r is not None else float("nan") for r in tl.rates()]
            ax.plot(window_x(tl), ys, color=colours[tl.label], linewidth=1.2 if i == 0 else 0.7,
                    alpha=1.0 if i == 0 else 0.45, label=tl.label if i == 0 else None)
    ax.axvspan(0, 1, color="0.85", zorder=0, label="page-out")
    ax.set_xticks([-1, 0, 1, 2])
    ax.set_xticklabels(["before", "page-out starts", "ends", "after"])
    ax.set_xlim(-1, 2)
    ax.set_ylim(bottom=0)
    label(ax, "before (its own time) | page-out (scaled to its length) | after",
          "worker reads per second (all workers)", "worker throughput", legend=False)
    ax.legend(fontsize="x-small", ncol=2)
    width = 0.8 / max(1, len(runs))
    for i, run in enumerate(runs):
        tls = {tl.label: timeline.result_for(run, tl) for tl in timeline.timelines(run)}
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
    runs_txt = f"{len(runs)} run{'s' if len(runs) != 1 else ''}"
    title = f"reclaim: workers before, during and after paging out ({runs_txt})"
    why = caveats.union(runs, "worker_loss")
    if any(tag == "CPUs take turns" for tag, _ in why):
        title += "\n" + caveats.NOT_HARDWARE + "the CPUs take turns (env cpus_concurrent): " \
            "this loss is the host's time-sharing, not the TLB's cost"
    elif why:  # side by side, but timed by an emulator or through a hypervisor
        title += "\n" + caveats.qualifier(why)
    fig.suptitle(title, fontsize="medium")
    return fig, None


def fig_reclaim_irqs(plt, run):
    """Interrupts per GiB paged out, per strategy and batch (log scale)."""
    recs = [r for r in run.results("reclaim") if irqs_per_gib(r)]
    if not recs:
        return None, "no reclaim records with interrupts"
    fig, axes = new_figure(plt)
    ax = axes[0]
    labels = [f"{r.get('strategy')} {r.get('batch')}" for r in recs]
    ax.bar(range(len(recs)), [irqs_per_gib(r) for r in recs])
    ax.set_xticks(range(len(recs)))
    ax.set_xticklabels(labels, rotation=30, ha="right", fontsize="small")
    ax.set_yscale("log")
    label(ax, "strategy and batch", "interrupts per GiB paged out",
          "reclaim: interrupts per GiB paged out", legend=False, axis="y")
    return fig, None


def fig_crossover(plt, ans):
    """The crossover map of an answer.Answer as a heat map: pages (rows)
    by targets (columns), coloured by log2 of INVLPGB's p50 over the IPI
    strategy's (blue: INVLPGB faster, red: IPIs faster), each cell with its
    ratio and verdict; a line where Linux's rule switches to INVLPGB."""
    import math
    gone = ans.no_data()
    if gone:
        return None, gone
    pages = sorted({c.pages for c in ans.cells})
    targets = sorted({c.targets for c in ans.cells})
    grid = [[float("nan")] * len(targets) for _ in pages]
    for c in ans.cells:
        grid[pages.index(c.pages)][targets.index(c.targets)] = math.log2(c.test.ratio)
    span = max([abs(v) for row in grid for v in row if v == v] + [0.1])
    fig, axes = new_figure(plt)
    ax = axes[0]
    img = ax.imshow(grid, cmap="RdBu_r", vmin=-span, vmax=span, origin="lower",
                    aspect="auto")
    bar = fig.colorbar(img, ax=ax)
    bar.set_label(f"log2({ans.invlpgb} p50 / {ans.ipi} p50): below 0, INVLPGB faster")
    marks = {answer.INVLPGB: "INVLPGB wins", answer.IPI: f"{ans.ipi} wins",
             answer.AS_FAST: "as fast", answer.NOT_SHOWN: "not shown\ndifferent"}
    for c in ans.cells:
        x, y = targets.index(c.targets), pages.index(c.pages)
        verdict = marks.get(c.winner, "1 run: not tested")
        ci = "" if c.test.ci is None else \
            f"\n[{1 + c.test.ci[0] / 100:.2f}, {1 + c.test.ci[1] / 100:.2f}]"
        light = abs(grid[y][x]) > 0.6 * span
        ax.text(x, y, f"{c.test.ratio:.2f}{ci}\n{verdict}", ha="center", va="center",
                fontsize="small", color="white" if light else "black")
    from matplotlib.patches import Rectangle
    hatched = False
    for c in ans.cells:
        if c.cost() is not None:
            x, y = targets.index(c.targets), pages.index(c.pages)
            ax.add_patch(Rectangle((x - 0.5, y - 0.5), 1, 1, fill=False, hatch="//",
                                   edgecolor="0.3", linewidth=0,
                                   label=None if hatched else "Linux picks the slower way"))
            hatched = True
    # Where Linux's rule (the runs' own picks) turns to INVLPGB.
    switch = sorted({targets.index(c.targets) for c in ans.cells if c.linux == answer.INVLPGB})
    if switch:
        ax.axvline(switch[0] - 0.5, color="black", linestyle="--", linewidth=2,
                   label="Linux: INVLPGB from 4 active CPUs (right)")
    if switch or hatched:
        # Below the map, not over a cell's numbers.
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2,
                  fontsize="small", frameon=False)
    ax.set_xticks(range(len(targets)))
    ax.set_xticklabels([str(t) for t in targets])
    ax.set_yticks(range(len(pages)))
    ax.set_yticklabels([str(p) for p in pages])
    ax.set_xlabel("responders (targets); active CPUs = targets + 1")
    ax.set_ylabel("pages per invalidation")
    runs = len(ans.runs)
    ax.set_title(f"ratio of p50s ({runs} run{'s' if runs != 1 else ''}; "
                 + ("t over runs, Holm" if ans.tested else "one run: no significance") + ")",
                 fontsize="medium")
    fig.suptitle(f"crossover: {ans.invlpgb} vs {ans.ipi}"
                 + (f"\n{ans.qualifier()}" if ans.qualifier() else ""))
    return fig, None


def fig_shootdown_crossover(plt, run):
    """The crossover heat map of one run (answer pools several)."""
    return fig_crossover(plt, answer.Answer([run]))


def save_crossover(ans, png, allow_reexec=False):
    """The heat map of an Answer as png and the same name .svg; returns
    what was written, or why nothing was."""
    plt = import_pyplot(allow_reexec)
    fig, why = fig_crossover(plt, ans)
    if fig is None:
        return f"not drawn: {why}"
    svg = os.path.splitext(png)[0] + ".svg"
    fig.savefig(png, dpi=DPI)
    fig.savefig(svg)
    plt.close(fig)
    return f"{png}, {svg}"


def fig_ceiling(plt, run):
    """The flush ceiling of one run: cost against K, K* marked (ceiling.py)."""
    import ceiling
    return ceiling.draw(plt, ceiling.Ceiling([run]), new_figure)


def save_ceiling(ceil, png, allow_reexec=False):
    """The ceiling plot of a ceiling.Ceiling beside png (NAME-ceiling.png and
    .svg); returns what was written, or why nothing was."""
    import ceiling
    plt = import_pyplot(allow_reexec)
    fig, why = ceiling.draw(plt, ceil, new_figure)
    if fig is None:
        return f"not drawn: {why}"
    base = os.path.splitext(png)[0] + "-ceiling"
    fig.savefig(base + ".png", dpi=DPI)
    fig.savefig(base + ".svg")
    plt.close(fig)
    return f"{base}.png, {base}.svg"


FIGURES = (
    ("shootdown-pages", fig_shootdown_pages),
    ("shootdown-targets", fig_shootdown_targets),
    ("shootdown-distance", fig_distance),
    ("shootdown-crossover", fig_shootdown_crossover),
    ("ceiling", fig_ceiling),
    ("flushloop-scaling", fig_flushloop),
    ("reclaim-timeline", fig_reclaim_timeline),
    ("reclaim-irqs", fig_reclaim_irqs),
)


def describe_figure(fig):
    """What a figure shows, read from its objects: the title, each axes'
    title, labels, scales and how many lines, bars and collections."""
    sup = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) else ""
    axes = []
    for ax in fig.axes:
        axes.append({"title": ax.get_title(), "xlabel": ax.get_xlabel(),
                     "ylabel": ax.get_ylabel(), "xscale": ax.get_xscale(),
                     "yscale": ax.get_yscale(), "lines": len(ax.lines),
                     "patches": len(ax.patches), "collections": len(ax.collections),
                     "colorbar": ax.get_label() == "<colorbar>"})
    w, h = fig.get_size_inches() * fig.dpi
    return {"suptitle": sup, "width": int(round(w)), "height": int(round(h)), "axes": axes}


def write_figures(run, outdir, plt, others=()):
    """Draws and saves every figure (the reclaim timeline with others'
    overlaid); returns the manifest entries."""
    entries = []
    for name, draw in FIGURES:
        fig, why = draw(plt, run, others) if draw is fig_reclaim_timeline else draw(plt, run)
        if fig is None:
            entries.append({"name": name, "skipped": why})
            continue
        entry = {"name": name, "png": name + ".png", "svg": name + ".svg"}
        entry.update(describe_figure(fig))
        fig.savefig(os.path.join(outdir, entry["png"]), dpi=DPI)
        fig.savefig(os.path.join(outdir, entry["svg"]))
        plt.close(fig)
        entries.append(entry)
    return entries


def html_page(run, entries):
    """The page: env, figures, tables."""
    e = html.escape
    parts = ["<!DOCTYPE html>", "<html><head><meta charset=\"utf-8\">",
             f"<title>shootdown: {e(run.name)}</title>",
             "<style>body{font-family:sans-serif;max-width:1000px;margin:auto}"
             "pre{font-size:12px;overflow-x:auto}td,th{text-align:left;padding:2px 8px}"
             "</style></head><body>",
             f"<h1>shootdown results: {e(run.name)}</h1>", "<h2>Environment</h2><table>"]
    parts += [f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in env_summary(run.env)]
    parts.append("</table>")
    if run.problems:
        parts.append("<h2>Log problems</h2><ul>")
        parts += [f"<li>{e(p)}</li>" for p in run.problems[:20]]
        parts.append("</ul>")
    parts.append("<h2>Figures</h2>")
    for ent in entries:
        if "skipped" in ent:
            parts.append(f"<p>{e(ent['name'])}: not drawn ({e(ent['skipped'])})</p>")
            continue
        parts.append(f"<h3>{e(ent['suptitle'] or ent['axes'][0]['title'])}</h3>"
                     f"<p><img src=\"{e(ent['png'])}\" width=\"{ent['width']}\" "
                     f"height=\"{ent['height']}\" alt=\"{e(ent['name'])}\"><br>"
                     f"<a href=\"{e(ent['svg'])}\">SVG</a></p>")
    parts.append("<h2>Tables</h2>")
    for title, headers, rows, right in run_tables(run):
        parts.append(f"<h3>{e(title)}</h3><pre>{e(format_table(headers, rows, right))}</pre>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def plot_run(run, outdir, allow_reexec=False, others=()):
    """Writes the figures, manifest.json and index.html into outdir;
    returns the manifest. others: more runs, overlaid on the reclaim
    timeline."""
    plt = import_pyplot(allow_reexec)
    os.makedirs(outdir, exist_ok=True)
    entries = write_figures(run, outdir, plt, others)
    manifest = {"run": run.path, "figures": entries}
    with open(os.path.join(outdir, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)
    with open(os.path.join(outdir, "index.html"), "w", encoding="utf-8") as f:
        f.write(html_page(run, entries))
    return manifest

