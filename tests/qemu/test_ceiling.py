#!/usr/bin/env python3
"""Tests of the flush ceiling (tools/results/ceiling.py).

Synthetic runs with a known break-even, none within the measured K range,
a tie around 33, and one run against three; the same arithmetic cases as
the guest's tests/unit/test_ceiling.c (the two must agree); a guest
`ceiling` record that disagrees with the host's must be caught. On this
make check's own consoles (FreshLogs in test_results.py calls fresh_*):
the delayed run's unicast K* against the one predicted from the control.
"""

import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
for path in (HERE, os.path.join(ROOT, "tools"), os.path.join(ROOT, "tools", "results")):
    if path not in sys.path:
        sys.path.insert(0, path)

import ceiling  # noqa: E402
import results_synth as synth  # noqa: E402
from runs import load, load_all  # noqa: E402

KS = (1, 2, 8, 32, 33, 64, 512)
HW_ENV = {"type": "env", "seq": 0, "hypervisor": None, "rdtsc_trapped": False}
TCG_ENV = dict(HW_ENV, hypervisor="TCGTCGTCGTCG")
# The cases of this make check that the delay test reads (cases.tsv).
CONTROL, DELAYED = "results-ceiling", "results-ceiling-slow"
# About 60% of the full flush + refill at W = 512 under TCG: K* falls from
# 300-500 pages to about 100, a drop larger than launch variance moves it.
DELAY = 300000
# How far the delayed run's K* may be from the predicted one: half the
# larger and 16 pages. The two runs are two launches, and under TCG on a
# host loaded by other work (load average 3 to 7) ipi-range's per-page
# slope differed between launches by up to 2x (delayed 292 against 146
# predicted, control 334); near K* = 1 a few pages are all there is.
TOLERANCE_PCT, TOLERANCE_PAGES = 50, 16


def rec(bench, strategy, pages, targets, p50, spread, mode=None, **more):
    r = {"type": "result", "bench": bench, "strategy": strategy, "pages": pages,
         "targets": targets, "samples": 25, "p50": p50, "p50_lo": max(p50 - spread, 0),
         "p50_hi": p50 + spread, "unit": "cycles"}
    r.update(min=r["p50_lo"], p90=r["p50_hi"], p99=r["p50_hi"], max=r["p50_hi"], mean=p50)
    if mode:
        r["ipi_mode"] = mode
    r.update(more)
    return r


def records(per_page=200, base=3000, refill=18000, spread_pct=1, env=HW_ENV, ws=(16, 512),
            invlpgb=False):
    """One run: unicast ipi-range costs base + per_page x K, ipi-full 5000, a
    refill of `refill` extra cycles at the largest W (on each CPU), local
    INVLPG 100 a page and CR3 500; with invlpgb, the model's INVLPGB
    (emulated): 20000 + 500 x K, its full flush 30000."""
    sp = lambda v: v * spread_pct // 100  # noqa: E731
    out = [dict(env)]
    for k in KS:
        out.append(rec("primitives", "invlpg-range", k, 0, 100 * k, sp(100 * k)))
    out.append(rec("primitives", "cr3-reload", 1, 0, 500, sp(500)))
    for w in ws:
        extra = refill * w // max(ws)
        for t in (0, 1):
            out.append(rec("primitives", "refill-after-full", w, t, 2000 + extra,
                           sp(2000 + extra), l2_tlb=512))
            out.append(rec("primitives", "refill-after-range", w, t, 2000, sp(2000),
                           l2_tlb=512, range_pages=33))
    for k in KS:
        c = base + per_page * k
        out.append(rec("shootdown", "ipi-range", k, 1, c, sp(c), "unicast"))
        out.append(rec("shootdown", "ipi-full", k, 1, 5000, sp(5000), "unicast"))
        if invlpgb:
            c = 20000 + 500 * k
            out.append(rec("shootdown", "invlpgb", k, 1, c, sp(c), emulated=True))
    if invlpgb:
        out.append(rec("primitives", "invlpgb-all+tlbsync", 0, 0, 30000, sp(30000),
                       emulated=True))
    return out


class Synthetic(unittest.TestCase):
    """The decision on synthetic runs."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ceiling-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def runs(self, *recs):
        paths = []
        for i, r in enumerate(recs):
            paths.append(os.path.join(self.tmp, f"r{i}.jsonl"))
            synth.write_jsonl(paths[-1], r)
        return load_all(paths)

    def test_known_break_even(self):
        # 5000 + 2 x 18000 = 41000: between 64 (15800) and 512 (105400),
        # 64 + 448 x 25200 / 89600 = 190.
        c = ceiling.Ceiling(self.runs(records()))
        way, w, s = c.answer()
        self.assertEqual((way, w, s["k"]), ("unicast", 512, "190"))
        self.assertEqual(s["linux_pos"], "below")
        self.assertEqual(s["full"], 41000)
        self.assertEqual(s["range33"], 3000 + 200 * 33)
        self.assertEqual(c.why, [])
        text = c.render()
        self.assertIn("a hardware answer (bare metal)", text)
        self.assertIn(ceiling.ONE_RUN, text)
        self.assertIn("Linux's 33 is below K* (190)", text)

    def test_none_within_the_measured_range(self):
        c = ceiling.Ceiling(self.runs(records(refill=10 ** 7)))
        _, _, s = c.answer()
        self.assertEqual(s["k"], ">512")
        self.assertEqual(s["linux_pos"], "below")
        c = ceiling.Ceiling(self.runs(records(refill=0, base=10 ** 6)))
        _, _, s = c.answer()
        self.assertEqual(s["k"], "<=1")
        self.assertEqual(s["linux_pos"], "above")

    def test_tie(self):
        # full side 5000 + 2 x 2300 = 9600 = the range flush at 33 pages;
        # a 30% interval on every median spans 33 on both sides.
        c = ceiling.Ceiling(self.runs(records(refill=2300, spread_pct=30)))
        _, _, s = c.answer()
        self.assertEqual(s["k"], "33")
        self.assertEqual(s["linux_pos"], "inside")
        self.assertIn("within K*'s interval: no difference shown", c.render())

    def test_one_run_against_three(self):
        one = ceiling.Ceiling(self.runs(records()))
        three = ceiling.Ceiling(self.runs(records(per_page=190), records(),
                                          records(per_page=210)))
        _, _, s1 = one.answer()
        _, _, s3 = three.answer()
        self.assertEqual(s1["interval"], "within the run")
        self.assertEqual(s3["interval"], "t over 3 runs (df 2)")
        self.assertNotIn(ceiling.ONE_RUN, three.render())
        lo, k, hi = float(s3["lo"]), float(s3["k"]), float(s3["hi"])
        self.assertLess(lo, k)
        self.assertLess(k, hi)
        self.assertLess(abs(k - 190), 10)
        js = three.as_json()
        self.assertEqual(js["runs"], 3)
        self.assertEqual(len(js["per_run"]), 3)

    def test_not_a_hardware_answer(self):
        c = ceiling.Ceiling(self.runs(records(env=TCG_ENV)))
        self.assertTrue(c.qualifier().startswith("not a hardware answer here: QEMU TCG"))
        self.assertIn("(not a hardware answer here: QEMU TCG)", c.render())
        self.assertFalse(c.as_json()["hardware_answer"])

    def test_invlpgb_way_says_its_model(self):
        # 30000 + 2 x 18000 = 66000 = 20000 + 500 x 92.
        c = ceiling.Ceiling(self.runs(records(invlpgb=True)))
        self.assertEqual(c.why, [])
        (w, s), = [p for p in c.pooled("invlpgb") if p[0] == 512]
        self.assertEqual(s["k"], "92")
        text = c.render()
        self.assertRegex(text, r"(?m)^ +invlpgb W 512: .*\(not a hardware answer here: "
                         r"INVLPGB emulated\)$")
        self.assertRegex(text, r"(?m)^ +unicast W 512: .*the answer$")
        self.assertEqual(c.answer()[0], "unicast")

    def test_no_data(self):
        recs = [r for r in records() if r.get("bench") != "primitives"]
        c = ceiling.Ceiling(self.runs(recs))
        self.assertTrue(c.no_data().startswith("no data: no refill records"))
        old = [{k: v for k, v in r.items() if k not in ("p50_lo", "p50_hi")}
               for r in records()]
        c = ceiling.Ceiling(self.runs(old))
        self.assertIn("without p50_lo/p50_hi", c.no_data())

    def test_same_arithmetic_as_the_guest(self):
        # tests/unit/test_ceiling.c: 100 cycles a page, full 5000 -> 50;
        # +-1500 on the curve, 3300 +-1000 full -> 33 [8, 58].
        curve = [(k, (100 * k, 100 * k, 100 * k)) for k in KS]
        z = (0, 0, 0)
        side = ((500, 500, 500), (5500, 5500, 5500), (1000, 1000, 1000), z, z, 0)
        self.assertEqual(ceiling.solve(curve, side)["k"], 50)
        curve = [(k, (100 * k, max(100 * k - 1500, 0), 100 * k + 1500)) for k in KS]
        side = ((3300, 2300, 4300), (1000, 1000, 1000), (1000, 1000, 1000), z, z, 0)
        s = ceiling.solve(curve, side)
        self.assertEqual((s["k"], s["k_lo"], s["k_hi"], s["linux_pos"]),
                         (33, 8, 58, "inside"))

    def test_agreement_catches_a_difference(self):
        run, = self.runs(records())
        _, out, _ = ceiling.run_ceiling(run)
        guest = [{"type": "ceiling", "way": way, "targets": out[way]["targets"],
                  "points": [dict(p) for p in out[way]["points"]],
                  **({"why_not": out[way]["why_not"]} if "why_not" in out[way] else {})}
                 for way in ceiling.WAYS]
        run.records += guest
        self.assertEqual(ceiling.agreement(run), [])
        guest[0]["points"][-1]["k"] += 1
        self.assertEqual(ceiling.agreement(run), ["unicast W 512: k 191 here 190"])
        run.records = [r for r in run.records if r.get("type") != "ceiling"]
        self.assertEqual(ceiling.agreement(run), ["no ceiling record"])
        # Without refill records the guest prints none, rightly.
        run.records = [r for r in run.records if r.get("bench") != "primitives"]
        self.assertEqual(ceiling.agreement(run), [])


def predicted(control, delayed, delay, w):
    """The delayed run's unicast K* at W as the control predicts it: the
    control's ipi-range curve `delay` cycles higher (one round: the
    responder's handler waits that long, the initiator for it) against the
    delayed run's own full flush and refill (which the delay leaves alone)."""
    ic, idl = ceiling.Inputs(control), ceiling.Inputs(delayed)
    curve = [(k, tuple(v + delay for v in e)) for k, e in ic.curve["unicast"]]
    return ceiling.solve(curve, idl.side("unicast", w))


def fresh_delay_lowers_the_ceiling(test, control_log, delayed_log):
    """The delayed run's unicast K* (its guest record's answer) is lower
    than the control's, and within TOLERANCE of the predicted one."""
    control, delayed = load(control_log), load(delayed_log)
    for run in (control, delayed):
        test.assertEqual(ceiling.agreement(run), [], run.name)
    ans_c = ceiling.Ceiling([control]).answer()
    ans_d = ceiling.Ceiling([delayed]).answer()
    test.assertEqual(ans_c[:2], ans_d[:2])
    way, w, _ = ans_c
    test.assertEqual(way, "unicast")
    kc = ceiling.run_ceiling(control)[1][way]
    kd = ceiling.run_ceiling(delayed)[1][way]
    pc = next(p for p in kc["points"] if p["w"] == w)
    pd = next(p for p in kd["points"] if p["w"] == w)
    pred = predicted(control, delayed, DELAY, w)
    what = f"delayed K* {pd['k']} ({pd['k_where']}), predicted {pred['k']} " \
        f"({pred['k_where']}), control {pc['k']} ({pc['k_where']})"
    test.assertLess(ceiling.order((pd["k_where"], pd["k"])),
                    ceiling.order((pc["k_where"], pc["k"])), what)
    # Beyond the K measured only where predicted so; "at or below 1" is 1.
    test.assertEqual(pd["k_where"] == "above", pred["k_where"] == "above", what)
    if pred["k_where"] != "above":
        test.assertLessEqual(abs(pd["k"] - pred["k"]),
                             TOLERANCE_PCT * max(pd["k"], pred["k"]) / 100 +
                             TOLERANCE_PAGES, what)


if __name__ == "__main__":
    unittest.main(verbosity=1)
