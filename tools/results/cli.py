"""The command line of tools/shootdown.py: one subcommand per job.

    check    a log against the output contract (tools/checklog.py, unchanged)
    table    the human tables of a log or JSONL file
    compare  two sets of runs, with significance and a CI-gateable status
    answer   the crossover map of INVLPGB against IPIs, and Linux's rule;
             the flush ceiling K* against Linux's 33
    plot     PNG/SVG figures and index.html, the one page of a run
    tap      the verdicts as TAP version 13
    junit    the verdicts as JUnit XML
    lava     a LAVA job log back to the raw console; --gate (lava.py)
    lava-job a LAVA job of lava/jobs

Exit statuses: check keeps checklog's (0 clean, 1 problems, 2 unreadable);
compare: 0 no significant slowdown, 1 a significant slowdown beyond the
threshold, 2 bad input; table, answer, plot, tap, junit: 0 done, 2 bad input (tap
and junit describe failures in their output, they do not fail themselves,
unless --status is given: then run-qemu.sh's statuses, 1 when a verdict or
the log check failed, else 0, 77 every check skipped, 3 aborted);
lava --gate likewise (lava.py).
"""

import argparse
import json
import math
import os
import sys

import checklog
import compare as compare_mod
import tables
import lava
import verdicts
from runs import InputError, load, load_all

BENCHES = ("primitives", "shootdown", "reclaim", "flushloop")
EXIT_OK, EXIT_WORSE, EXIT_INPUT = 0, 1, 2


def number(text):
    """A finite float from text, or argparse's error."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return v


def threshold_pct(text):
    """argparse type of compare's --threshold: a percentage in (0, 10]. A
    gate that calls a change only from 11% on, or from 0, or never (NaN
    compares false with everything), is no gate."""
    v = number(text)
    if not 0 < v <= 10:
        raise argparse.ArgumentTypeError(f"{text} is not in (0, 10] (percent)")
    return v


def gate_alpha(text):
    """argparse type of compare's --alpha: in (0, 0.5] (a gate that fails
    an A/A comparison more often than not gates nothing)."""
    v = number(text)
    if not 0 < v <= 0.5:
        raise argparse.ArgumentTypeError(f"{text} is not in (0, 0.5]")
    return v


def probability(text):
    """argparse type: a number in (0, 1)."""
    v = float(text)
    if not 0 < v < 1:
        raise argparse.ArgumentTypeError(f"{text} is not between 0 and 1")
    return v


def build_parser():
    """The parser with every subcommand."""
    ap = argparse.ArgumentParser(
        prog="shootdown.py",
        description="Work with saved shootdown console logs and JSONL files "
        "(docs/results.md).")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")

    sub.add_parser("check", add_help=False,
                   help="check a log against docs/output.md (tools/checklog.py; "
                   "'check --help' for its options)")

    p = sub.add_parser("table", help="the human tables of a log or JSONL file")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--bench", action="append", choices=BENCHES,
                   help="only this experiment (repeatable)")

    p = sub.add_parser("compare", help="compare runs A with runs B",
                       description="compare A B, or A1 A2 ... -- B1 B2 ..., or "
                       "--a FILE ... --b FILE ...: each side is one or more runs "
                       "(logs or JSONL) of one setup. Exit 0: no significant "
                       "slowdown; 1: B significantly slower by the threshold or "
                       "more somewhere; 2: bad input.")
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="two files (A B), or A files -- B files")
    p.add_argument("--a", action="append", default=[], metavar="FILE", help="a run of side A")
    p.add_argument("--b", action="append", default=[], metavar="FILE", help="a run of side B")
    p.add_argument("--threshold", type=threshold_pct, default=5.0, metavar="PCT",
                   help="smallest change (percent, in (0, 10]) called slower or faster "
                   "(default 5)")
    p.add_argument("--alpha", type=gate_alpha, default=0.05,
                   help="the gate's false-positive rate, in (0, 0.5], shared by the "
                   "level test and the rows (Holm) (default 0.05); the test is over "
                   "runs: one run a side is never significant")
    p.add_argument("--correction", choices=("holm", "none"), default="holm",
                   help="multiple-comparison correction over the rows (default holm)")
    p.add_argument("--bootstrap", type=int, default=2000, metavar="N",
                   help="no longer used: the test is over runs (kept for old scripts)")
    p.add_argument("--seed", type=int, default=1, help="no longer used (kept for old scripts)")
    p.add_argument("--bench", action="append", choices=BENCHES,
                   help="only this experiment (repeatable)")
    p.add_argument("--json", metavar="OUT", help="also write the rows and verdict as JSON")

    p = sub.add_parser("answer", help="where INVLPGB beats IPIs (the crossover map), and "
                       "what Linux's rule picks",
                       description="The crossover map of one or more runs of one setup: "
                       "per (pages, targets) cell the ratio of INVLPGB's p50 to the IPI "
                       "strategy's, its interval and significance over runs (the run is the "
                       "unit: one run is never significant), the winner, the frontier, and "
                       "Linux's rule (docs/results.md).")
    p.add_argument("files", nargs="+", metavar="RUN")
    p.add_argument("--alpha", type=probability, default=0.05,
                   help="significance level, after Holm's correction (default 0.05)")
    p.add_argument("--threshold", type=float, default=5.0, metavar="PCT",
                   help="smallest difference (percent) that makes a winner (default 5)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--markdown", action="store_true", help="Markdown instead of text")
    fmt.add_argument("--json", action="store_true", help="JSON instead of text")
    p.add_argument("--plot", metavar="PNG", help="also draw the heat map (PNG and SVG), "
                   "and the ceiling beside it (PNG's name + -ceiling)")

    p = sub.add_parser("plot", help="PNG/SVG figures and index.html, the page of one run "
                       "(status, findings, verdicts failures first, figures, env)")
    p.add_argument("file", metavar="FILE")
    p.add_argument("more", metavar="MORE", nargs="*",
                   help="more runs, overlaid on the reclaim timeline figure")
    p.add_argument("-o", "--out", metavar="DIR",
                   help="output directory (default: FILE without its extension, + '-plots')")

    for name, what in (("tap", "TAP version 13"), ("junit", "JUnit XML")):
        p = sub.add_parser(name, help=f"the verdicts of a log as {what}")
        p.add_argument("file", metavar="LOG")
        p.add_argument("-o", "--out", metavar="FILE", help="write here (default stdout)")
        p.add_argument("--no-log-check", action="store_true",
                       help="leave out the point that says whether the log is complete")
        p.add_argument("--status", action="store_true",
                       help="exit 1 when a verdict (or the log check) failed, 77 when "
                       "every check skipped, 3 when the run aborted (run-qemu.sh's statuses)")
    # Parsed by lava.py (dispatch hands them over before this parser runs):
    # listed here so that --help names every subcommand.
    sub.add_parser("lava", add_help=False,
                   help="a LAVA job log back to the raw console; --gate: the status LAVA's "
                   "job result does not give ('lava --help' for its options; docs/lab.md)")
    sub.add_parser("lava-job", add_help=False,
                   help="render a LAVA job template of lava/jobs ('lava-job --help')")
    return ap


def split_sides(args, ap):
    """The two sides' files from the positional files and --a/--b."""
    a, b = list(args.a), list(args.b)
    if args.files_b is not None:
        a += args.files
        b += args.files_b
    elif args.files:
        if len(args.files) != 2 or a or b:
            ap.error("compare: give A B, or A files -- B files, or --a/--b")
        a, b = [args.files[0]], [args.files[1]]
    if not a or not b:
        ap.error("compare: each side needs at least one file")
    return a, b


def cmd_table(args):
    """table: every file's tables."""
    runs = load_all(args.files)
    out = []
    for run in runs:
        head = f"== {run.path}" if len(runs) > 1 else None
        body = tables.render_run(run, args.bench)
        out.append(f"{head}\n{body}" if head else body)
        if run.problems:
            out.append(f"({run.name}: {len(run.problems)} problem(s) with the log; "
                       "'check' lists them)")
    print("\n\n".join(out))
    return EXIT_OK


def cmd_compare(args, ap):
    """compare: the report, and the gating status."""
    a_files, b_files = split_sides(args, ap)
    runs_a, runs_b = load_all(a_files), load_all(b_files)
    for run in runs_a + runs_b:
        why = run.unfinished()
        if why:
            raise InputError(f"{run.path}: {why}: not compared (a cut-off run's "
                             "records are not a whole run)")
    side_a = compare_mod.Side("A", runs_a)
    side_b = compare_mod.Side("B", runs_b)
    cmp = compare_mod.Comparison(side_a, side_b, args)
    if not cmp.rows:
        print(cmp.render())
        print("compare: no configuration is in both A and B", file=sys.stderr)
        return EXIT_INPUT
    print(cmp.render())
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(cmp.as_json(), f, indent=1)
            f.write("\n")
    return cmp.status()


def cmd_answer(args, allow_reexec):
    """answer: the crossover map and the seeds' claims."""
    import answer
    import ceiling
    import findings
    import side_by_side
    runs = load_all(args.files)
    if args.plot:
        # Before any output: matplotlib may need this command run again
        # under Debian's python (plots.import_pyplot), which would print
        # the report a second time.
        import plots
        try:
            plots.import_pyplot(allow_reexec)
        except plots.MissingMatplotlib as exc:
            print(f"shootdown.py answer: {exc}", file=sys.stderr)
            return EXIT_INPUT
    # The Linux side's runs (docs/linux.md) are read beside the harness's,
    # never pooled with them.
    linux = [r for r in runs if side_by_side.is_linux(r)]
    runs = [r for r in runs if not side_by_side.is_linux(r)]
    ans = answer.Answer(runs, alpha=args.alpha, threshold=args.threshold)
    ceil = ceiling.Ceiling(runs)
    claims = findings.Claims(runs, confidence=1 - args.alpha)
    both = side_by_side.SideBySide(runs, linux, confidence=1 - args.alpha) if linux else None
    if args.json:
        out = dict(ans.as_json(), ceiling=ceil.as_json(), claims=claims.as_json())
        if both:
            out["linux"] = both.as_json()
        print(json.dumps(out, indent=1))
    elif args.markdown:
        sys.stdout.write(ans.markdown() + ceil.markdown() + claims.markdown() +
                         (both.markdown() if both else ""))
    else:
        print(ans.render() + "\n" + ceil.render() + "\n" + claims.render() +
              ("\n" + both.render() if both else ""))
    if args.plot:
        why = plots.save_crossover(ans, args.plot, allow_reexec)
        cwhy = plots.save_ceiling(ceil, args.plot, allow_reexec)
        print(f"heat map: {why}", file=sys.stderr)
        print(f"ceiling: {cwhy}", file=sys.stderr)
    return EXIT_OK


def cmd_plot(args, allow_reexec):
    """plot: figures, manifest, page."""
    import plots
    run = load(args.file)
    outdir = args.out or (os.path.splitext(args.file)[0] + "-plots")
    try:
        manifest = plots.plot_run(run, outdir, allow_reexec,
                                  others=[load(m) for m in args.more])
    except plots.MissingMatplotlib as exc:
        print(f"shootdown.py plot: {exc}", file=sys.stderr)
        return EXIT_INPUT
    for ent in manifest["figures"]:
        if "skipped" in ent:
            print(f"{ent['name']}: not drawn: {ent['skipped']}")
        else:
            print(f"{os.path.join(outdir, ent['png'])} ({ent['width']}x{ent['height']}), "
                  f"{ent['svg']}")
    print(os.path.join(outdir, "index.html"))
    return EXIT_OK


def cmd_verdicts(args):
    """tap / junit: the verdicts of a log."""
    run = load(args.file)
    if run.kind != "log":
        raise InputError(f"{args.file}: a JSONL file has no verdict lines; give the console log")
    log_check = not args.no_log_check
    text = verdicts.to_tap(run, log_check) if args.command == "tap" else \
        verdicts.junit_text(run, log_check)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return verdicts.gate_status(run, log_check) if args.status else EXIT_OK


def pre_split(argv):
    """compare's 'A ... -- B ...': the files after '--' are side B. argparse
    would take '--' as the end of options only, so it is split here."""
    if argv and argv[0] == "compare" and "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1:]
    return argv, None


def dispatch(argv, allow_reexec=False):
    """Runs one subcommand; returns its exit status. Input it cannot read
    is InputError (exit 2); anything else raised is a bug (main's guard,
    and the fuzz target that must never reach it: tests/fuzz/host_reader.py)."""
    if argv and argv[0] == "check":
        return checklog.main(argv[1:])
    if argv and argv[0] in ("lava", "lava-job"):
        return lava.main(argv)
    argv, files_b = pre_split(argv)
    ap = build_parser()
    args = ap.parse_args(argv)
    args.files_b = files_b
    try:
        if args.command == "table":
            return cmd_table(args)
        if args.command == "compare":
            if args.bootstrap < 100:
                ap.error("--bootstrap must be at least 100")
            return cmd_compare(args, ap)
        if args.command == "answer":
            return cmd_answer(args, allow_reexec)
        if args.command == "plot":
            return cmd_plot(args, allow_reexec)
        return cmd_verdicts(args)
    except InputError as exc:
        print(f"shootdown.py {args.command}: {exc}", file=sys.stderr)
        return EXIT_INPUT


def main(argv=None, allow_reexec=False):
    """Entry point; returns the exit status: one line, never a traceback,
    whatever the input (exit 2 where it cannot be read or written)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    name = "shootdown.py" + (f" {argv[0]}" if argv and not argv[0].startswith("-") else "")
    try:
        return dispatch(argv, allow_reexec)
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"{name}: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_INPUT
    except (RecursionError, MemoryError) as exc:
        print(f"{name}: input too large or too deeply nested to read "
              f"({type(exc).__name__})", file=sys.stderr)
        return EXIT_INPUT
    except Exception as exc:  # noqa: BLE001 -- the last line: one line, exit 2
        print(f"{name}: cannot read this input ({type(exc).__name__}: {exc}); "
              "this is a bug of the tool: please report it with the file",
              file=sys.stderr)
        return EXIT_INPUT
