"""Figures of one run, and a page that puts them with its tables and env.

Each figure is drawn by a small function that takes the Run and returns a
matplotlib Figure, or None with a reason when the run has nothing for it
(a run with bench=shootdown has no reclaim timeline). Every figure is
saved as PNG and SVG at a fixed size (FIG_INCHES at DPI: 960x600 pixels)
and described in manifest.json: its files, size, and each axes' title,
labels and scales, read back from the figure objects, so that tests can
check what was drawn without looking at pixels. Every title says, on its
second line, why the numbers are not the hardware's where the run says so
(its caveats, caveats.py). index.html (page.py) shows the figures with
the findings, the verdicts, the tables and the env; it needs nothing but
a browser. The reclaim figures are in plot_reclaim.py.

matplotlib is imported lazily with the Agg backend (no display needed):
the other subcommands must work where it is not installed.
"""

import json
import os
import sys

import answer
import page
from plot_base import DPI, headline, label, new_figure, strategies
from plot_reclaim import fig_reclaim_timeline
from tables import irqs_per_gib

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


def ns_unit(records):
    """'ns' when every record has the ns figures the figures draw (p50, and
    p90 and p99 for the band), else 'cycles': a record with ns_p50 alone
    (an older build's) would leave holes in a band."""
    return "ns" if all(r.get("ns_" + q) is not None for r in records
                       for q in ("p50", "p90", "p99")) else "cycles"


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
    headline(fig, "shootdown: latency vs pages (p50; band p90-p99; unicast)", [run],
             "crossover")
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
    headline(fig, "shootdown: latency vs responders (open squares: broadcast)", [run],
             "crossover")
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
    label(ax, "distance class of the responder from cpu 0", f"p50 ({unit})", "", axis="y")
    headline(fig, "one responder by distance: shootdown (fewest pages) and round trips",
             [run], "crossover")
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
    label(ax, "cpus in the loop", "operations per second (all cpus)", "")
    headline(fig, "flushloop: unmap + flush + remap throughput", [run], "throughput")
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
    label(ax, "strategy and batch", "interrupts per GiB paged out", "", legend=False,
          axis="y")
    headline(fig, "reclaim: interrupts per GiB paged out", [run], "interrupts", counts=True)
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


def plot_run(run, outdir, allow_reexec=False, others=()):
    """Writes the figures, manifest.json and index.html into outdir;
    returns the manifest. others: more runs, overlaid on the reclaim
    timeline and pooled in the page's findings."""
    plt = import_pyplot(allow_reexec)
    os.makedirs(outdir, exist_ok=True)
    entries = write_figures(run, outdir, plt, others)
    manifest = {"run": run.path, "figures": entries}
    with open(os.path.join(outdir, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)
    with open(os.path.join(outdir, "index.html"), "w", encoding="utf-8") as f:
        f.write(page.html_page(run, entries, others))
    return manifest

