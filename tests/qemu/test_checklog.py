#!/usr/bin/env python3
"""Self-test of tools/checklog.py: every good sample log passes, and every
bad one is rejected for the reason it was written for.

Each sample in tests/qemu/samples/ starts with comment lines, which checklog
skips like any firmware output before the kernel's first line:
    # args: OPTIONS            checklog options for this sample (shell words)
    # expect-problem: REGEX    (bad-*.log) a problem that must be reported
Run: python3 tests/qemu/test_checklog.py  (or python3 -m unittest from here).
"""

import io
import json
import os
import re
import shlex
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SAMPLES = os.path.join(HERE, "samples")
# No __pycache__ beside the sources (nothing to ignore or to commit by mistake).
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tools"))

import checklog  # noqa: E402  (needs the path above)
import checklog_claims  # noqa: E402
import exitcodes  # noqa: E402
import experiments  # noqa: E402
import verdictline  # noqa: E402


def read_header(path):
    """The sample's checklog options (list of words) and expected problems
    (list of regexes)."""
    args, expect = [], []
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode("latin-1").rstrip("\r\n")
            if not line.startswith("# "):
                break
            if line.startswith("# args: "):
                args += shlex.split(line[len("# args: "):])
            elif line.startswith("# expect-problem: "):
                expect.append(line[len("# expect-problem: "):])
    return args, expect


def run_cli(argv):
    """checklog.main(argv) with its output captured: (status, stdout)."""
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        status = checklog.main(argv)
    return status, out.getvalue()


def samples(prefix):
    """Paths of the samples whose name starts with prefix."""
    return sorted(os.path.join(SAMPLES, n) for n in os.listdir(SAMPLES)
                  if n.startswith(prefix) and n.endswith(".log"))


class Samples(unittest.TestCase):
    """The sample logs, through the command line as a person would use it."""

    def test_samples_exist(self):
        self.assertGreaterEqual(len(samples("good-")), 3)
        self.assertGreaterEqual(len(samples("bad-")), 10)

    def test_good_samples_pass(self):
        for path in samples("good-"):
            with self.subTest(sample=os.path.basename(path)):
                args, _ = read_header(path)
                status, out = run_cli([path] + args)
                self.assertEqual(out, "")
                self.assertEqual(status, 0)

    def test_bad_samples_fail_for_their_reason(self):
        for path in samples("bad-"):
            name = os.path.basename(path)
            with self.subTest(sample=name):
                args, expect = read_header(path)
                self.assertTrue(expect, f"{name} has no '# expect-problem:' line")
                status, out = run_cli([path] + args)
                self.assertEqual(status, 1, f"{name} was accepted")
                for regex in expect:
                    self.assertRegex(out, regex)


class Api(unittest.TestCase):
    """check_log() details that the samples do not pin down."""

    def good_text(self):
        with open(os.path.join(SAMPLES, "good-kernel.log"), encoding="ascii") as f:
            return f.read()

    def test_crlf_and_lf_read_the_same(self):
        text = self.good_text()
        lf = checklog.check_log(text)
        crlf = checklog.check_log(text.replace("\n", "\r\n").encode("ascii"))
        self.assertEqual(lf.problems, [])
        self.assertEqual(crlf.problems, [])
        self.assertEqual(lf.records, crlf.records)
        self.assertEqual(crlf.counts, {"PASS": 3, "FAIL": 0, "SKIP": 1, "INFO": 1})
        self.assertEqual(crlf.status, 0)
        self.assertEqual(crlf.env["boot"], "multiboot1")
        # A console saved from a pty (LAVA's, script(1)'s): \r\r\n.
        pty = checklog.check_log(text.replace("\n", "\r\r\n").encode("ascii"))
        self.assertEqual(pty.problems, [])
        self.assertEqual(pty.records, lf.records)

    def test_first_line_after_escapes_on_the_same_line(self):
        text = self.good_text().replace("shootdown v0.1", "\x1b[2J\x1b[01;01Hshootdown v0.1")
        lines = text.split("\n")
        i = next(n for n, ln in enumerate(lines) if ln.startswith("@json"))
        lines[i - 1] += "\x1b[0m\r" + lines[i]  # GRUB's escapes, then our env
        del lines[i]
        rep = checklog.check_log("\n".join(lines))
        self.assertEqual(rep.problems, [])

    def test_json_output(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "records.jsonl")
            status, _ = run_cli([os.path.join(SAMPLES, "good-kernel.log"), "--json", out])
            self.assertEqual(status, 0)
            with open(out, encoding="ascii") as f:
                kinds = [checklog.parse_record(ln)[0]["type"] for ln in f]
            self.assertEqual(kinds, ["env", "result", "result", "summary"])

    def test_exit_line_status(self):
        import exitcodes
        for line, want in (("EXIT: STATUS=0", 0), (b"EXIT: STATUS=38", 38),
                           ("EXIT: STATUS=", None), ("EXIT: STATUS=1 ", None),
                           ("EXIT: STATUS=\u00b2", None), ("EXIT: STATUS=-1", None),
                           (b"EXIT:STATUS=0", None), ("PASS: x", None)):
            self.assertEqual(exitcodes.exit_line_status(line), want, line)

    def test_unreadable_file(self):
        status, _ = run_cli(["/nonexistent/console.log"])
        self.assertEqual(status, 2)

    def test_expect_field_values_are_json(self):
        self.assertEqual(checklog.parse_field("cpus_online=4"), ("cpus_online", 4))
        self.assertEqual(checklog.parse_field("apic=xapic"), ("apic", "xapic"))
        self.assertEqual(checklog.parse_field("features.pcid=false"), ("features.pcid", False))
        rep = checklog.check_log(self.good_text(), expect_fields={"tsc_khz": True})
        self.assertRegex(rep.problems[0], "expected true")

    def test_deep_json_is_a_problem_not_a_crash(self):
        obj, why = checklog.parse_record('{"type":"result","x":' + "[" * 5000 + "]" * 5000 +
                                         "}")
        self.assertIsNone(obj)
        self.assertIn("nested too deeply", why)

    def test_a_timeline_value_longer_than_64_bits_is_refused_at_once(self):
        import time
        import timeline_codec
        start = time.monotonic()
        with self.assertRaisesRegex(timeline_codec.DecodeError, "longer than 13"):
            timeline_codec.decode("z" * 1600000 + "0")
        self.assertLess(time.monotonic() - start, 30.0)  # it took minutes: quadratic
        big = [0, 2 ** 64 - 1, 0]
        self.assertEqual(timeline_codec.decode(timeline_codec.encode(big)), big)

    def test_nan_is_not_json(self):
        obj, why = checklog.parse_record('{"type":"result","seq":1,"mean":NaN}')
        self.assertIsNone(obj)
        self.assertIn("NaN", why)


class Runs(unittest.TestCase):
    """The records against the plan record's runs and the strategies'
    definitions (tools/experiments.py), beyond the samples."""

    def sample(self, name):
        with open(os.path.join(SAMPLES, name), encoding="ascii") as f:
            return f.read()

    def plan_problems(self, text):
        return [p for p in checklog.check_log(text).problems if ": plan: " in p]

    def test_a_fail_line_waives_its_experiment_only(self):
        text = self.sample("bad-plan-missing-run.log").replace(
            "PASS: reclaim: per-page 1: exact counts",
            "FAIL: shootdown: responders: 2 pages, 1 targets: a responder did not answer")
        probs = self.plan_problems(text)
        self.assertFalse([p for p in probs if "shootdown" in p], probs)
        self.assertTrue([p for p in probs if "reclaim" in p], probs)
        self.assertTrue([p for p in probs if "flushloop" in p], probs)

    def test_a_strategy_that_skipped_as_not_run_is_waived(self):
        """A planned strategy whose SKIP line says it is not run (invlpgb
        with bug=pcid on a CPU without PCID) has no records to show; any
        other SKIP of it waives nothing."""
        base = self.sample("bad-plan-missing-run.log")
        skip = "SKIP: shootdown: ipi-range: bug=pcid: no PCID here: it is not run"
        text = base.replace("PASS: reclaim: per-page 1: exact counts", skip)
        probs = self.plan_problems(text)
        self.assertFalse([p for p in probs if "shootdown" in p], probs)
        self.assertTrue([p for p in probs if "reclaim" in p], probs)
        other = base.replace("PASS: reclaim: per-page 1: exact counts",
                             "SKIP: shootdown: ipi-range: no stale reads: proves nothing")
        self.assertTrue([p for p in self.plan_problems(other) if "shootdown" in p])

    def test_a_cpu_that_failed_waives_every_experiment(self):
        text = self.sample("bad-plan-missing-run.log").replace(
            "PASS: reclaim: per-page 1: exact counts",
            "FAIL: smp: xcall: cpu 1, apic id 1 did not answer within 5000 ms, and "
            "still owes request 9: taken out of the run")
        self.assertEqual(self.plan_problems(text), [])

    def test_an_unfinished_run_is_not_held_to_its_plan(self):
        text = self.sample("bad-plan-missing-run.log")
        cut = text[:text.index("SUMMARY: ")]
        self.assertEqual(self.plan_problems(cut), [])

    def test_a_plan_without_runs_checks_nothing(self):
        """Logs of builds before the plan named its runs counted IPIs per
        configuration, not per sample: their records are left alone."""
        lines = self.sample("bad-ipi-count.log").split("\n")
        for i, line in enumerate(lines):
            if line.startswith('@json {"type":"plan"'):
                rec, _ = checklog.parse_record(line[6:])
                del rec["runs"]
                lines[i] = "@json " + json.dumps(rec, separators=(",", ":"))
        self.assertEqual(checklog.check_log("\n".join(lines)).problems, [])

    def test_cpu_counts(self):
        self.assertEqual(experiments.cpu_counts(1), [1])
        self.assertEqual(experiments.cpu_counts(2), [1, 2])
        self.assertEqual(experiments.cpu_counts(4), [1, 2, 4])
        self.assertEqual(experiments.cpu_counts(13), [1, 2, 4, 8, 13])

    def test_counts_follow_the_definitions(self):
        self.assertEqual(experiments.shootdown_ipis("ipi-page", 8, 3), 24)
        self.assertEqual(experiments.shootdown_ipis("ipi-full-global", 8, 3), 3)
        self.assertEqual(experiments.shootdown_ipis("invlpgb-global", 8, 3), 0)
        self.assertIsNone(experiments.shootdown_ipis("ipi-magic", 8, 3))
        self.assertEqual(experiments.shootdown_icr_writes("ipi-page", "broadcast", 8, 3), 8)
        self.assertEqual(experiments.shootdown_ipis("invlpgb-linux", 512, 3), 0)
        self.assertEqual(experiments.shootdown_base("invlpgb-linux"), "invlpgb-linux")
        self.assertEqual(experiments.reclaim_flushes(4096, 31), 133)
        self.assertEqual(experiments.reclaim_ipis("per-page", 4096, 1, 3),
                         512 * experiments.reclaim_ipis("batch", 4096, 512, 3))
        self.assertEqual(experiments.reclaim_ipis("invlpgb-pages", 4096, 512, 3), 0)

    def test_invlpgb_linux_has_no_ipi_mode(self):
        rec = {"type": "result", "bench": "shootdown", "strategy": "invlpgb-linux",
               "pages": 512, "targets": 3, "ipis_sent": 0, "irqs_received": 0}
        env = {"cpus_online": 4}
        self.assertEqual(experiments.check_records([rec], env), [])
        bad = dict(rec, ipi_mode="unicast")
        self.assertEqual([p for _, p in experiments.check_records([bad], env)],
                         ["ipi_mode 'unicast' for invlpgb-linux"])
        ipis = dict(rec, ipis_sent=3)
        self.assertEqual(len(experiments.check_records([ipis], env)), 1)
        # The software model's records are not held to IPI counts.
        self.assertEqual(experiments.check_records([dict(ipis, emulated=True)], env), [])

    def test_a_log_s_vocabulary_names_its_strategies(self):
        """A strategy the log's vocabulary record names is checked by the
        formulas of its flush kind and role, no list here extended; one it
        does not name is a problem that says where it looked."""
        voc = {"type": "vocabulary", "strategies": [
            {"bench": "shootdown", "strategy": "ipi-page-twice", "role": "page",
             "flush": "ipi"},
            {"bench": "shootdown", "strategy": "invlpgb-twice", "role": "range",
             "flush": "invlpgb"}]}
        rec = {"type": "result", "bench": "shootdown", "strategy": "ipi-page-twice",
               "ipi_mode": "unicast", "pages": 8, "targets": 3, "ipis_sent": 24,
               "irqs_received": 24}
        env = {"cpus_online": 4}
        self.assertEqual(experiments.check_records([voc, rec], env), [])
        self.assertEqual([p for _, p in experiments.check_records(
            [voc, dict(rec, ipis_sent=3)], env)],
            ["ipis_sent 3, expected 24 for ipi-page-twice unicast, 8 pages, 3 responders"])
        inv = {"type": "result", "bench": "shootdown", "strategy": "invlpgb-twice",
               "pages": 8, "targets": 3, "ipis_sent": 0}
        self.assertEqual(experiments.check_records([voc, inv], env), [])
        self.assertEqual([p for _, p in experiments.check_records(
            [voc, dict(rec, strategy="ipi-page")], env)],
            ["strategy 'ipi-page' is not in the log's vocabulary record"])
        vocab = experiments.of_log([voc])
        self.assertEqual(experiments.strategies("shootdown", vocab),
                         ("ipi-page-twice", "invlpgb-twice"))
        self.assertEqual(experiments.shootdown_records(
            ["ipi-page-twice", "invlpgb-twice"], [1], [1, 3], 3, vocab=vocab), 2 + 3)

    def test_shootdown_record_count(self):
        names = ["ipi-page", "ipi-full", "ipi-full-global", "invlpgb", "invlpgb-global",
                 "invlpgb-linux"]
        # IPI names 1 + 1 + (1 + broadcast) at 1, 2, 3 of 3 responders,
        # INVLPGB names 3; two page counts.
        self.assertEqual(experiments.shootdown_records(names, [1, 2], [1, 2, 3], 3), 42)
        self.assertEqual(experiments.shootdown_records(["invlpgb-linux"], [1, 34, 512],
                                                       [1, 2, 3], 3), 9)
        # A second distance class: one more 1-responder configuration.
        self.assertEqual(experiments.shootdown_records(["invlpgb-linux", "ipi-page"], [1],
                                                       [1, 3], 3, classes=2), 2 + 3 + 2)
        # Without a 1-responder configuration every class adds one.
        self.assertEqual(experiments.shootdown_records(["invlpgb"], [1], [3], 3, classes=2), 3)
        self.assertIsNone(experiments.shootdown_records(["ipi-magic"], [1], [1], 1))
        env = {"topology": {"classes": {"smt-sibling": 0, "same-package": 3,
                                        "other-package": 2}}}
        self.assertEqual(experiments.shootdown_classes(env), 2)
        self.assertEqual(experiments.shootdown_classes({}), 1)
        recs = checklog.check_log(self.sample("good-plan-runs.log")).records
        plan = experiments.find_plan(recs)["shootdown"]
        self.assertEqual(experiments.shootdown_records(plan["strategies"], plan["pages"],
                                                       plan["targets"], 1),
                         len([r for r in recs if r.get("bench") == "shootdown"]))

    def test_clean_runs(self):
        recs = checklog.check_log(self.sample("good-plan-runs.log")).records
        self.assertEqual(experiments.check_clean(recs, "shootdown"), [])
        stale = [dict(r, stale_reads=2) if r.get("bench") == "shootdown" else r for r in recs]
        self.assertRegex(" ".join(experiments.check_clean(stale, "shootdown")), "stale_reads 2")
        # The sample's plan is a few runs: a passing run must plan every
        # strategy that flushes by IPIs.
        self.assertEqual(experiments.check_clean(recs, "reclaim"),
                         ["the plan's reclaim runs leave out per-page-invlpg",
                          "the plan's reclaim runs leave out batch-pages"])
        self.assertEqual(experiments.check_clean(recs, "flushloop"),
                         ["the plan's flushloop runs leave out ipi-page"])
        lost = [dict(r, lost_writes=1) if r.get("bench") == "reclaim" else r for r in recs]
        self.assertEqual(len([p for p in experiments.check_clean(lost, "reclaim")
                              if "lost_writes" in p]), 2)  # not the control's


class VerdictNames(unittest.TestCase):
    """Where a name ends (tools/verdictline.py), in both schemas."""

    def test_schema2_name_ends_at_the_marker(self):
        self.assertEqual(verdictline.split("FAIL: a: b -- c: d -- e"),
                         ("FAIL", "a: b", "c: d -- e"))
        self.assertEqual(verdictline.split("PASS: tsc: frequency -- 2445436 kHz"),
                         ("PASS", "tsc: frequency", "2445436 kHz"))
        self.assertEqual(verdictline.split("PASS: a: b"), ("PASS", "a: b", None))

    def test_schema1_lines_read_as_before(self):
        self.assertEqual(verdictline.split("SKIP: tlb: invpcid: CPUID.7 is clear"),
                         ("SKIP", "tlb: invpcid", "CPUID.7 is clear"))
        self.assertEqual(verdictline.split("FAIL: x"), ("FAIL", "x", ""))
        self.assertIsNone(verdictline.split("INFO: a -- b"))

    def test_numbers_in_names(self):
        env = {"cmdline": "pages=33 seed=7", "cpus_online": 4}
        plan = {"type": "plan", "runs": {"reclaim": [{"batch": 31}]},
                "costs_ns": {"ipi_one": 3467}}
        allowed = verdictline.parameters(env, [plan])
        ok = ("reclaim: batch 31: no lost writes", "tlb: cr3 reload drops it",
              "tsc: sources agree within 0.5%", "smp: 10000 IPIs", "a 33 4")
        for name in ok:
            self.assertEqual(verdictline.name_problems(name, allowed), [], name)
        for name in ("tsc: frequency 2445436 kHz", "x: 3467 ns", "x: 1 of 5"):
            self.assertTrue(verdictline.name_problems(name, allowed), name)


class Claims(unittest.TestCase):
    """What a run claims, against its env and its own curve
    (tools/checklog_claims.py); the bad-*.log samples cover the rest."""

    def sample(self, edit):
        """good-ceiling-tcg.log with one record edited: its problems."""
        with open(os.path.join(SAMPLES, "good-ceiling-tcg.log"), encoding="ascii",
                  newline="") as f:
            lines = f.read().split("\r\n")
        for i, line in enumerate(lines):
            if line.startswith("@json "):
                rec = json.loads(line[6:])
                edit(rec)
                lines[i] = "@json " + json.dumps(rec, separators=(",", ":"))
        return checklog.check_log("\r\n".join(lines)).problems

    def test_the_base_is_clean(self):
        self.assertEqual(self.sample(lambda rec: None), [])

    def test_a_tcg_tag_off_tcg_is_a_contradiction(self):
        def bare_metal(rec):
            if rec["type"] == "env":
                rec["hypervisor"] = None
        probs = self.sample(bare_metal)
        self.assertTrue(any('caveats says "QEMU TCG" but env hypervisor is null' in p
                            for p in probs), probs)
        self.assertTrue(any('ceiling: not_hardware says "QEMU TCG"' in p for p in probs), probs)

    def test_below_and_above_sit_at_the_curve_s_ends(self):
        def below(rec):
            if rec["type"] == "ceiling" and rec["way"] == "unicast":
                rec["points"][0].update(k_lo=2, k_lo_where="below")
        probs = self.sample(below)
        self.assertTrue(any("k_lo 2 is below the curve, so it must be 1" in p
                            for p in probs), probs)

    def test_a_result_s_loss_is_a_percentage(self):
        self.assertEqual(checklog_claims.result_loss({"worker_loss_pct": 101}),
                         ["field 'worker_loss_pct' must be a percentage in "
                          "[-9223372036854775808, 100] (is 101)"])
        self.assertEqual(checklog_claims.result_loss({"worker_loss_pct": -123}), [])
        # a worker that the host left unscheduled before the page-out
        self.assertEqual(checklog_claims.result_loss({"worker_loss_min_pct": -94433}), [])
        self.assertEqual(len(checklog_claims.result_loss({"worker_loss_pct": -(1 << 64)})), 1)

    def test_one_interval_end_without_the_other(self):
        self.assertEqual(checklog_claims.loss_side("per_page", {"pct": 5, "lo_pct": 1}),
                         ["worker_loss.per_page: lo_pct and hi_pct come together"])


class Roles(unittest.TestCase):
    """A result's role and flush kind (docs/records.md "result"): known for
    its bench, ipi exactly where there is an ipi_mode, one a strategy."""

    ROLE_H = os.path.join(ROOT, "bench", "role.h")

    def log(self, *whats):
        """good-kernel.log with its two shootdown results given (role, flush,
        ipi_mode) each, a None leaving the field out."""
        with open(os.path.join(SAMPLES, "good-kernel.log"), encoding="ascii") as f:
            lines = f.read().split("\n")
        res = [i for i, ln in enumerate(lines) if '"type":"result"' in ln]
        for i, (role, flush, mode) in zip(res, whats):
            rec = json.loads(lines[i][len("@json "):])
            rec.update({k: v for k, v in (("role", role), ("flush", flush),
                                          ("ipi_mode", mode)) if v is not None})
            lines[i] = "@json " + json.dumps(rec, separators=(",", ":"))
        return checklog.check_log("\n".join(lines)).problems

    def test_known_roles_pass(self):
        self.assertEqual(self.log(("range", "ipi", "unicast"), ("full", "ipi", "unicast")), [])
        self.assertEqual(self.log(), [])  # an older build's: neither field

    def test_an_unknown_or_unset_role_is_named(self):
        probs = self.log(("unset", "ipi", "unicast"), ("full", "local", "unicast"))
        self.assertEqual(len(probs), 2, probs)
        self.assertRegex(probs[0], r"field 'role' is \"unset\", not one of shootdown's")
        self.assertRegex(probs[1], r"field 'flush' is \"local\", not one of shootdown's")

    def test_ipi_is_exactly_the_records_with_an_ipi_mode(self):
        probs = self.log(("range", "ipi", None), ("range", "invlpgb", "unicast"))
        self.assertEqual([re.sub(r"^line \d+: ", "", p) for p in probs],
                         ["result: flush ipi without an ipi_mode",
                          "result: flush invlpgb with an ipi_mode"])

    def test_every_result_has_them_once_one_has(self):
        probs = self.log(("range", "ipi", "unicast"))
        self.assertEqual(len(probs), 1, probs)
        self.assertIn("no 'role' or 'flush'", probs[0])

    def test_one_role_a_strategy(self):
        with open(os.path.join(SAMPLES, "good-kernel.log"), encoding="ascii") as f:
            text = f.read().replace('"strategy":"ipi-full"', '"strategy":"ipi-range"')
        text = text.replace('"strategy":"ipi-range",', '"strategy":"ipi-range","role":"range",'
                            '"flush":"ipi","ipi_mode":"unicast",', 1)
        text = text.replace('"strategy":"ipi-range","pages"', '"strategy":"ipi-range",'
                            '"role":"page","flush":"ipi","ipi_mode":"unicast","pages"', 1)
        probs = checklog.check_log(text).problems
        self.assertEqual(len(probs), 1, probs)
        self.assertIn("shootdown ipi-range is page ipi here, range ipi earlier", probs[0])

    def with_vocabulary(self, entries, role="range"):
        """good-kernel.log with a vocabulary record of entries after its env,
        its first result given role and flush ipi."""
        with open(os.path.join(SAMPLES, "good-kernel.log"), encoding="ascii") as f:
            lines = f.read().split("\n")
        env = next(i for i, ln in enumerate(lines) if ln.startswith('@json {"type":"env"'))
        voc = {"type": "vocabulary", "linux_ceiling": 33, "pmd_pages": 512, "pages": [1, 8],
               "strategies": entries}
        for i, ln in enumerate(lines):
            if '"type":"result"' in ln:
                lines[i] = ln.replace('"strategy":"ipi-range",', '"strategy":"ipi-range",'
                                      f'"role":"{role}","flush":"ipi","ipi_mode":"unicast",')
                lines[i] = lines[i].replace('"strategy":"ipi-full",', '"strategy":"ipi-full",'
                                            '"role":"full","flush":"ipi","ipi_mode":"unicast",')
        lines.insert(env + 1, "@json " + json.dumps(voc, separators=(",", ":")))
        seq = 0
        for i, ln in enumerate(lines):  # one more record: the seqs after it move
            if ln.startswith("@json "):
                rec = json.loads(ln[6:])
                rec["seq"] = seq
                if rec["type"] == "summary":
                    rec["records"] = seq
                lines[i] = "@json " + json.dumps(rec, separators=(",", ":"))
                seq += 1
        text = "\n".join(lines)
        return [re.sub(r"^line \d+: ", "", p) for p in checklog.check_log(text).problems]

    def test_the_vocabulary_record(self):
        good = [{"bench": "shootdown", "strategy": "ipi-range", "role": "range", "flush": "ipi"},
                {"bench": "shootdown", "strategy": "ipi-full", "role": "full", "flush": "ipi",
                 "global": "ipi-full-global"},
                {"bench": "shootdown", "strategy": "ipi-full-global", "role": "variant",
                 "flush": "ipi", "variant_of": "ipi-full"}]
        self.assertEqual(self.with_vocabulary(good), [])
        self.assertEqual(self.with_vocabulary(good, role="page"),
                         ["result: shootdown ipi-range is page ipi, the vocabulary says "
                          "range ipi"])
        bad = good[:1] + [dict(good[1], role="bogus", **{"global": "nowhere"})]
        probs = self.with_vocabulary(bad)
        self.assertIn("vocabulary: ipi-full: field 'role' is \"bogus\", not one of "
                      "shootdown's: page, range, full, linux, variant", probs)
        self.assertIn('vocabulary: ipi-full: global "nowhere" is no shootdown strategy of it',
                      probs)

    def test_the_names_are_the_kernel_s(self):
        """checklog's roles and kinds are bench/role.h's, none left out."""
        with open(self.ROLE_H, encoding="ascii") as f:
            text = f.read()
        roles = set(re.findall(r"X\(ROLE_\w+, \"([a-z-]+)\"\)", text))
        kinds = set(re.findall(r"X\(FK_\w+, \"([a-z-]+)\"\)", text))
        self.assertGreater(len(roles), 5)
        known = {r for v in checklog.ROLES.values() for r in v}
        self.assertEqual(known, roles - {"unset"})
        self.assertEqual({k for v in checklog.FLUSH_KINDS.values() for k in v},
                         kinds - {"unset"})


class ExitCodes(unittest.TestCase):
    """The guest's statuses are defined twice, for C and for the host tools:
    every kernel header that defines one (kernel/report.h, boot/boot.h)
    must say what tools/exitcodes.py says."""

    DEFINE_RE = re.compile(r"^#define\s+(STATUS_\w+)\s+(\w+)\s*$", re.M)

    def headers(self):
        """The C headers of the kernel: the repository but build/ and tests/."""
        for top, dirs, files in os.walk(ROOT):
            dirs[:] = [d for d in dirs if d not in ("build", "tests") and not d.startswith(".")]
            for name in files:
                if name.endswith(".h"):
                    yield os.path.join(top, name)

    def test_kernel_statuses_match(self):
        found = {}
        for path in self.headers():
            with open(path, encoding="utf-8", errors="replace") as f:
                for name, value in self.DEFINE_RE.findall(f.read()):
                    rel = os.path.relpath(path, ROOT)
                    self.assertEqual(exitcodes.GUEST_C_NAMES.get(name), int(value, 0),
                                     f"{rel}: {name} is {value}; tools/exitcodes.py says "
                                     f"{exitcodes.GUEST_C_NAMES.get(name)}")
                    found[name] = int(value, 0)
        self.assertEqual(found, exitcodes.GUEST_C_NAMES)

    def test_every_guest_status_maps(self):
        self.assertEqual(set(exitcodes.GUEST_STATUS), set(exitcodes.GUEST_C_NAMES.values()))
        self.assertEqual(set(exitcodes.GUEST_STATUS), set(exitcodes.GUEST_WORDS))
        for ours in exitcodes.GUEST_STATUS.values():
            self.assertIn(ours, exitcodes.LAUNCHER_WORDS)


if __name__ == "__main__":
    unittest.main(verbosity=1)
