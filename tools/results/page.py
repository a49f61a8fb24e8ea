"""index.html of `plot`: the one page a reader opens for a run.

In the order a reader asks: did it pass (the status, and why its numbers
are or are not the hardware's: the run's caveats), what it found (the
findings, as `answer` reads them for this one run), which checks failed
(the verdicts, failures first, then skips, passes folded away), the
figures, the tables, and where it ran (the env). Plain HTML and CSS: no
script, nothing fetched, so it opens from a CI artifact or a file:// URL
as it is; tests/tools/test_page.py loads it in a real browser.
"""

import html

import answer
import caveats
import ceiling
import findings
import verdicts
from runs import env_summary
from tables import format_table, run_tables

STYLE = (
    "body{font-family:sans-serif;max-width:1000px;margin:auto;padding:0 8px}"
    "pre{font-size:12px;overflow-x:auto}td,th{text-align:left;padding:2px 8px;"
    "vertical-align:top}img{max-width:100%;height:auto}"
    ".status{padding:8px 12px;border-radius:4px;font-weight:bold}"
    ".pass{background:#dfd}.fail{background:#fdd}.skip,.unknown{background:#eee}"
    "li.FAIL{color:#a00}li.SKIP{color:#666}.why{color:#444}nav a{margin-right:1em}")
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


def findings_sections(run):
    """[(title, qualifier, lines)]: the findings of this one run as
    `answer` reads them (the guest decided them; nothing is decided here)."""
    ans = answer.Answer([run])
    gone = ans.no_data()
    out = [("crossover: where INVLPGB beats IPIs", ans.heading() or "",
            [gone] if gone else [])]
    if not gone:
        out += ans.sections()
    out += ceiling.Ceiling([run]).sections()
    out += findings.Claims([run]).sections()
    return out


def esc_list(items, cls=None):
    """A <ul> of escaped items (each a string, or (class, text))."""
    e = html.escape
    rows = []
    for it in items:
        c, text = it if isinstance(it, tuple) else (cls, it)
        rows.append(f"<li class=\"{e(c)}\">{e(text)}</li>" if c else f"<li>{e(text)}</li>")
    return "<ul>" + "".join(rows) + "</ul>"


def part_status(run):
    e = html.escape
    cls, text = status_line(run)
    out = [f"<p class=\"status {cls}\">{e(text)}</p>"]
    why = caveats.union([run])
    if why:
        out.append("<p>Not a hardware answer here, because:</p>")
        out.append("<ul>" + "".join(f"<li><b>{e(t)}</b>: {e(w)}</li>" for t, w in why) +
                   "</ul>")
    elif caveats.missing([run]):
        out.append(f"<p>Its caveats are unknown: {e(caveats.NO_FINDINGS)}.</p>")
    else:
        out.append("<p>No caveat: a hardware answer (bare metal).</p>")
    return out


def part_findings(run):
    e = html.escape
    if caveats.missing([run]):
        return [f"<p>No findings: {e(caveats.NO_FINDINGS)}.</p>"]
    out = [f"<p class=\"why\">{e(SEEDS)}</p>"]
    for title, qual, lines in findings_sections(run):
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


def html_page(run, entries):
    """The page of one run and its figures' manifest entries."""
    e = html.escape
    pts = verdicts.points(run) if run.kind == "log" else []
    body = {"status": part_status(run), "findings": part_findings(run),
            "verdicts": part_verdicts(run, pts), "figures": part_figures(entries),
            "tables": part_tables(run), "env": part_env(run)}
    parts = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
             # No favicon fetch: nothing on the page may fail to load.
             "<link rel=\"icon\" href=\"data:,\">",
             f"<title>shootdown: {e(run.name)}</title>", f"<style>{STYLE}</style>",
             "</head><body>", f"<h1>shootdown results: {e(run.name)}</h1>",
             "<nav>" + "".join(f"<a href=\"#{k}\">{e(t)}</a>" for k, t in SECTIONS) +
             "</nav>"]
    for key, title in SECTIONS:
        parts.append(f"<h2 id=\"{key}\">{e(title)}</h2>")
        parts += body[key]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
