"""What every figure module shares (plots.py, plot_reclaim.py): the fixed
size, the one-panel helpers, and the title line of the run's caveats."""

import caveats

FIG_INCHES = (9.6, 6.0)
DPI = 100


def new_figure(plt, ncols=1):
    """A figure of the fixed size with ncols axes side by side."""
    fig, axes = plt.subplots(1, ncols, figsize=FIG_INCHES, dpi=DPI, squeeze=False,
                             layout="constrained")
    return fig, list(axes[0])


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


def headline(fig, title, runs, section=None, counts=False):
    """The figure's title, and under it the runs' caveats (caveats.py):
    every figure says where its numbers are not the hardware's."""
    line = caveats.figure_line(runs, section, counts)
    fig.suptitle(title + (f"\n{line}" if line else ""), fontsize="medium")
