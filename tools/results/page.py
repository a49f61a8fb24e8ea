"""index.html of `plot`: the one page a reader opens for a run.

In the order a reader asks: did it pass (the status, and why its numbers
are or are not the hardware's: the run's caveats), what it found (the
findings, as `answer` reads them for every run plotted: one boot never
decides, so the page of several boots pools them as `answer` does), which
checks failed (the verdicts, failures first, then skips, passes folded
away), the figures, the tables, and where it ran (the env). Verdicts,
tables and env are the first run's; the status names every run's. Plain
HTML and CSS: no script, nothing fetched, so it opens from a CI artifact
or a file:// URL as it is; tests/tools/test_page.py loads it in a real
browser.
"""

import html

import answer
import caveats
import ceiling
import findings
import side_by_side
import verdicts
from runs import env_summary
from tables import format_table, run_tables

STYLE = (
    "body{font-family:sans-serif;max-width:1000px;margin:auto;padding:0 8px}"
    "pre{font-size:12px;overflow-x:auto}td,th{text-align:left;padding:2px 8px;"
    "vertical-align:top}img{max-width:100%;height:auto}"
    ".status{padding:8px 12px;border-radius:4px;font-weight:bold}"
    ".pass{background:#dfd}.fail{background:#fdd}.skip,.unknown{background:#eee}"
    "li.FAIL,li.warning{color:#a00}li.SKIP{color:#666}.why{color:#444}nav a{margin-right:1em}")
SECTIONS = (("status", "Status"), ("findings", "Findings"), ("verdicts", "Verdicts"),
            ("figures", "Figures"), ("tables", "Tables"), ("env", "Environment"))
ORDER = {"FAIL": 0, "SKIP": 1, "PASS": 2}
SEEDS = ("The seeds are the two published measurements the run re-enacts "
         "(docs/experiments.md, \"The seeds\"): seed 000, the will-it-scale tlb_flush2 "
         "figures of the INVLPGB series (Linux 6.15; EPYC Milan, 36 cores: 527k to 1157k "
         "loops/s with an LRU drain removed too); seed 001, the test of the reclaim-batching "
         "patch on the linux-mm list (2025: a reader of a hot map loses about 53% while "
         "another CPU pages out a cold one, about none with one flush per batch).")


def counts(run):
    """(passed, failed, skipped) of the verdict lines, as the log's SUMMARY
    counts them, or of the summary record where the file has no verdict
    lines (JSONL)."""
    if run.verdicts:
        return tuple(sum(v.kind == k for v in run.verdicts) for k in ("PASS", "FAIL", "SKIP"))
    summ = [r for r in run.records if r.get("type") == "summary"]
    if summ:
        return tuple(summ[-1].get(k, 0) for k in ("passed", "failed", "skipped"))
    return None


def status_line(run):
    """(css class, text) of the run's outcome: failed where a check failed,
    the run did not finish or its log breaks the contract (checklog)."""
    got = counts(run)
    unfinished = run.unfinished()
    if got is None:
        return "unknown", f"no verdicts and no summary record: {unfinished or 'nothing to judge'}"
    passed, failed, skipped = got
    tail = f"{passed} passed, {failed} failed, {skipped} skipped"
    if run.status is not None:
        tail += f" (EXIT: STATUS={run.status})"
    if failed:
        return "fail", f"FAILED: {tail}"
    if unfinished:
        return "fail", f"did not finish: {unfinished}; {tail}"
    if run.kind == "log" and run.problems:
        return "fail", f"the log has {len(run.problems)} problem(s) (checklog); {tail}"
    if not passed and skipped:
        return "skip", f"every check skipped: {tail}"
    return "pass", f"passed: {tail}"


def sides(runs):
    """(harness, linux): the Linux side's runs are read beside the
    harness's, never pooled with them (as `answer` reads them); a page of
    Linux runs alone has them as its harness runs."""
    linux = [r for r in runs if side_by_side.is_linux(r)]
    harness = [r for r in runs if r not in linux]
    return (harness, linux) if harness else (linux, [])


def findings_sections(runs, linux=()):
    """(warnings, [(title, qualifier, lines)]): the findings of these runs
    as `answer` reads them (each guest decided its own; here they are only
    pooled), and the Linux runs' beside them; warnings: how the runs'
    machines or command lines differ, as `answer` warns."""
    ans = answer.Answer(runs)
    gone = ans.no_data()
    out = [("crossover: where INVLPGB beats IPIs", ans.heading() or "",
            [gone] if gone else [])]
    if not gone:
        out += ans.sections()
    out += ceiling.Ceiling(runs).sections()
    out += findings.Claims(runs).sections()
    if linux:
        out += side_by_side.SideBySide(runs, linux).sections()
    return ans.warnings, out


def esc_list(items, cls=None):
    """A <ul> of escaped items (each a string, or (class, text))."""
    e = html.escape
    rows = []
    for it in items:
        c, text = it if isinstance(it, tuple) else (cls, it)
        rows.append(f"<li class=\"{e(c)}\">{e(text)}</li>" if c else f"<li>{e(text)}</li>")
    return "<ul>" + "".join(rows) + "</ul>"


def part_status(runs):
    e = html.escape
    out = []
    for run in runs:
        cls, text = status_line(run)
        name = f"{run.name}: " if len(runs) > 1 else ""
        out.append(f"<p class=\"status {cls}\">{e(name + text)}</p>")
    why = caveats.union(runs)
    if why:
        out.append("<p>Not a hardware answer here, because:</p>")
        out.append("<ul>" + "".join(f"<li><b>{e(t)}</b>: {e(w)}</li>" for t, w in why) +
                   "</ul>")
    elif caveats.missing(runs):
        out.append(f"<p>Its caveats are unknown: {e(caveats.NO_FINDINGS)}.</p>")
    else:
        out.append("<p>No caveat: a hardware answer (bare metal).</p>")
    return out


def part_findings(runs, linux):
    e = html.escape
    # Some runs without one: answer's warnings name them, left out.
    if len(caveats.missing(runs)) == len(runs):
        return [f"<p>No findings: {e(caveats.NO_FINDINGS)}.</p>"]
    out = [f"<p class=\"why\">{e(SEEDS)}</p>"]
    if len(runs) > 1:
        out.append(f"<p>Over {len(runs)} runs ({e(', '.join(r.name for r in runs))}): "
                   "the run is the unit, as in <code>answer</code>.</p>")
    warnings, sections = findings_sections(runs, linux)
    if warnings:
        out.append(esc_list(("warning", f"warning: {w}") for w in warnings))
    for title, qual, lines in sections:
        out.append(f"<h3>{e(title)}</h3>")
        if qual:
            out.append(f"<p><b>{e(qual)}</b></p>")
        if lines:
            out.append(esc_list(lines))
    return out


def part_verdicts(run, pts):
    """Failures first, then skips with their reasons, then the passes
    (folded: a reader looks for what went wrong)."""
    e = html.escape
    if not pts:
        return ["<p>No verdict lines: a JSONL file has none (give the console log).</p>"]
    ordered = sorted(pts, key=lambda p: ORDER.get(p.kind, 0))
    shown = [(p.kind, f"{p.kind}: {p.name}" + (f" -- {p.why}" if p.why else ""))
             for p in ordered if p.kind != "PASS"]
    passes = [f"{p.name}" + (f" -- {p.why}" if p.why else "") for p in ordered
              if p.kind == "PASS"]
    out = [esc_list(shown)] if shown else ["<p>No check failed or skipped.</p>"]
    if passes:
        # The count of the SUMMARY line; the log check, a point of its own
        # (verdicts.py), is named apart.
        checked = sum(p.kind == "PASS" and p.name == verdicts.LOG_CHECK_NAME for p in pts)
        head = f"{len(passes) - checked} passed" + \
            (f", and {verdicts.LOG_CHECK_NAME}" if checked else "")
        out.append(f"<details><summary>{e(head)}</summary>"
                   f"{esc_list(passes, 'PASS')}</details>")
    if run.problems:
        out.append(f"<p>The log itself ({len(run.problems)} problem(s), checklog):</p>")
        out.append(esc_list(run.problems[:20]))
    return out


def part_figures(entries):
    e = html.escape
    out = []
    for ent in entries:
        if "skipped" in ent:
            out.append(f"<p>{e(ent['name'])}: not drawn ({e(ent['skipped'])})</p>")
            continue
        head = ent["suptitle"] or ent["axes"][0]["title"]
        title, _, rest = head.partition("\n")
        out.append(f"<h3 id=\"fig-{e(ent['name'])}\">{e(title)}</h3>")
        if rest:
            out.append(f"<p class=\"why\">{e(rest)}</p>")
        out.append(f"<p><img src=\"{e(ent['png'])}\" width=\"{ent['width']}\" "
                   f"height=\"{ent['height']}\" alt=\"{e(ent['name'])}\"><br>"
                   f"<a href=\"{e(ent['svg'])}\">SVG</a></p>")
    return out


def part_tables(run):
    e = html.escape
    return [f"<h3>{e(title)}</h3><pre>{e(format_table(headers, rows, right))}</pre>"
            for title, headers, rows, right in run_tables(run)]


def part_env(run):
    e = html.escape
    return ["<table>"] + [f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>"
                          for k, v in env_summary(run.env)] + ["</table>"]


def html_page(run, entries, others=()):
    """The page of a run and its figures' manifest entries; others: the
    runs plotted with it, whose status it names and whose findings it
    pools with the run's."""
    e = html.escape
    runs = [run, *others]
    pts = verdicts.points(run) if run.kind == "log" else []
    heading = run.name + (f" and {len(others)} more" if others else "")
    body = {"status": part_status(runs), "findings": part_findings(*sides(runs)),
            "verdicts": part_verdicts(run, pts), "figures": part_figures(entries),
            "tables": part_tables(run), "env": part_env(run)}
    parts = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
             # No favicon fetch: nothing on the page may fail to load.
             "<link rel=\"icon\" href=\"data:,\">",
             f"<title>shootdown: {e(heading)}</title>", f"<style>{STYLE}</style>",
             "</head><body>", f"<h1>shootdown results: {e(heading)}</h1>",
             "<nav>" + "".join(f"<a href=\"#{k}\">{e(t)}</a>" for k, t in SECTIONS) +
             "</nav>"]
    for key, title in SECTIONS:
        parts.append(f"<h2 id=\"{key}\">{e(title)}</h2>")
        parts += body[key]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
