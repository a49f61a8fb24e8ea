"""Host-side tools over saved shootdown output: console logs and JSONL files.

A run's console (saved from QEMU or from a server's BMC) and the JSON lines
that `run-qemu.sh --json` or `checklog.py --json` write are the only inputs;
nothing here talks to the machine that ran the kernel. The entry point is
tools/shootdown.py; each subcommand lives in its own module:

  runs      read a log or a JSONL file into a Run (records, env, verdicts)
  config    which fields identify a measured configuration (the join key)
  hist      the latency histograms of result records, and quantiles of them
  stats     Student's t over runs, Holm's correction (and sample-level tools)
  compare   two sets of runs, row by row, with a verdict and an exit status
  tables    the human tables (shootdown, reclaim, flushloop, primitives)
  plots     PNG/SVG figures and an HTML page (matplotlib, Agg)
  verdicts  PASS/FAIL/SKIP lines as TAP 13 or JUnit XML
  cli       the argument parser and the dispatch
"""
