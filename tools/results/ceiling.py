"""The flush ceiling K*: up to how many pages flushing one by one is cheaper
than a full flush plus the refill of the working set it drops.

The same arithmetic as the guest's bench/ceiling.c, redone from the result
records: every cost is a median with its order-statistic interval (the
records' p50, p50_lo and p50_hi), every division of non-negative integers
rounded down, so that one run's K* here and in its `ceiling` records agree
to the page (tests/qemu/test_results.py holds them to it). Nothing is
resampled: the numbers are deterministic.

Per way (local INVLPG, unicast ipi-range to one responder, broadcast to
all) and working set W: the range flush's cost against K, and the full
side: the full flush (cr3-reload, ipi-full) + (refill-after-full -
refill-after-range) on the initiator + targets x the same on a responder.
K* is where the first reaches the second; its interval comes from the
curves' and the full side's interval ends (a bound, not a joint 95%).

Several runs: the run is the unit, as in the crossover map (answer.py):
each run gives one K*, and the pooled K* is their geometric mean with a
Student's t interval on their logs (df = runs - 1). With one run, the
interval is the run's own, from its samples, and launch variance cannot
be told apart from it: it says so.
"""

import math

import stats
import caveats as run_caveats
from caveats import NOT_HARDWARE


def caveats(runs, records):
    """The runs' ceiling caveats, as the guest printed them."""
    return run_caveats.union(runs, "ceiling")

LINUX = 33          # tlb_single_page_flush_ceiling
WAYS = ("unicast", "local", "broadcast", "invlpgb")
PRIMITIVES = ("invlpg-range", "cr3-reload", "invlpgb-all+tlbsync", "refill-after-full",
              "refill-after-range")
MAX_W = 4           # the guest notes at most 4 working sets
MAX_K = 16          # and at most 16 page counts a curve
AT, BELOW, ABOVE = "at", "below", "above"
ONE_RUN = ("one run: its interval is from its own samples; launch-to-launch variance "
           "cannot be told apart from it (run it 3 or more times)")


def est(rec):
    """(p50, lo, hi) of a record, or None without the interval."""
    vals = [rec.get(k) for k in ("p50", "p50_lo", "p50_hi")]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        return None
    return tuple(vals)


def shootdown_way(rec):
    """The way of a shootdown record the ceiling uses, or None (as the
    guest's shootdown_way())."""
    if rec.get("bench") != "shootdown":
        return None
    if rec.get("strategy") == "invlpgb" and rec.get("targets") == 1 and rec.get("samples"):
        return "invlpgb"
    if rec.get("strategy") not in ("ipi-range", "ipi-full"):
        return None
    if not rec.get("ipi_mode") or rec.get("emulated") or not rec.get("samples"):
        return None
    if rec["ipi_mode"] == "unicast" and rec.get("targets") == 1:
        return "unicast"
    if rec["ipi_mode"] == "broadcast":
        return "broadcast"
    return None


class Inputs:
    """What one run's records give the ceiling, noted as the guest notes
    them: the first record of each kind."""

    def __init__(self, run):
        self.curve = {w: [] for w in WAYS}      # [(k, (p50, lo, hi))], k ascending
        self.full = {}                          # way -> est
        self.targets = {"local": 0}
        self.ws = []                            # in order of appearance
        self.refill = {}                        # (w, responder, after_range) -> est
        self.l2 = None
        self.delay = 0
        self.records = []                       # the records it rests on
        self.by_way = {w: [] for w in WAYS}     # those of each way's own flushes
        self.missing_interval = False
        for rec in run.results():
            self.note(rec)
        if self.l2 is None:  # refill records of a build before their l2_tlb
            self.l2 = next((r.get("l2_tlb") for r in run.records
                            if r.get("type") == "ceiling"), None)

    def note_k(self, way, rec, e):
        curve = self.curve[way]
        if any(k == rec.get("pages") for k, _ in curve) or len(curve) == MAX_K:
            return
        curve.append((rec["pages"], e))
        curve.sort(key=lambda p: p[0])

    def note(self, rec):
        prim = rec.get("bench") == "primitives" and rec.get("strategy") in PRIMITIVES and \
            rec.get("samples")
        way = shootdown_way(rec)
        if not prim and way is None:
            return
        e = est(rec)
        if e is None:
            self.missing_interval = True
            return
        self.records.append(rec)
        s = rec["strategy"]
        if prim:
            if s == "invlpg-range":
                self.note_k("local", rec, e)
                self.by_way["local"].append(rec)
            elif s == "cr3-reload":
                self.full.setdefault("local", e)
                self.by_way["local"].append(rec)
            elif s == "invlpgb-all+tlbsync":
                self.full.setdefault("invlpgb", e)
                self.by_way["invlpgb"].append(rec)
            else:
                w = rec.get("pages")
                if w not in self.ws:
                    if len(self.ws) == MAX_W:
                        return
                    self.ws.append(w)
                if isinstance(rec.get("l2_tlb"), int):
                    self.l2 = rec["l2_tlb"]
                key = (w, bool(rec.get("targets")), s == "refill-after-range")
                self.refill.setdefault(key, e)
            return
        if self.targets.get(way) not in (None, rec.get("targets")):
            return
        self.targets[way] = rec.get("targets")
        self.by_way[way].append(rec)
        if rec.get("delay_cycles"):
            self.delay = rec["delay_cycles"]
        if s != "ipi-full":
            self.note_k(way, rec, e)
        else:
            self.full.setdefault(way, e)

    def side(self, way, w):
        """(flush, init_full, init_range, resp_full, resp_range, targets), or None."""
        r = self.refill
        if way not in self.full or (w, False, False) not in r or (w, False, True) not in r:
            return None
        if way == "local":
            return (self.full[way], r[(w, False, False)], r[(w, False, True)], (0, 0, 0),
                    (0, 0, 0), 0)
        if (w, True, False) not in r or (w, True, True) not in r:
            return None
        return (self.full[way], r[(w, False, False)], r[(w, False, True)],
                r[(w, True, False)], r[(w, True, True)], self.targets.get(way) or 0)

    def why_none(self, way):
        """As the guest's why_none()."""
        if not self.curve[way]:
            return {"local": "no invlpg-range records (primitives did not run)",
                    "invlpgb": "no invlpgb records at 1 target (INVLPGB did not run)"}.get(
                        way, "no ipi-range records in this way")
        if way not in self.full:
            return {"local": "no cr3-reload record",
                    "invlpgb": "no invlpgb-all+tlbsync record"}.get(
                        way, "no ipi-full records in this way")
        return "no refill records for it (primitives did not run, or had no responder)"

    def answer_w(self):
        """The largest W within the L2 TLB, else the first W (as the guest)."""
        fit = [w for w in self.ws if self.l2 is not None and w <= self.l2]
        return max(fit) if fit else (self.ws[0] if self.ws else None)


def sat(a, b):
    return a - b if a > b else 0


def full_cost(side):
    """(p50, lo, hi) of the full side (bench/ceiling.c ceiling_full_cost)."""
    flush, ifu, ira, rfu, rra, t = side
    return (flush[0] + sat(ifu[0], ira[0]) + t * sat(rfu[0], rra[0]),
            flush[1] + sat(ifu[1], ira[2]) + t * sat(rfu[1], rra[2]),
            flush[2] + sat(ifu[2], ira[1]) + t * sat(rfu[2], rra[1]))


def crossing(curve, which, t):
    """(where, k): the first K at which the curve's value `which` (0 p50, 1
    lo, 2 hi) reaches t, linear between measured K, rounded down."""
    for i, (k, e) in enumerate(curve):
        if e[which] < t:
            continue
        if i == 0:
            return BELOW, k
        k0, e0 = curve[i - 1]
        return AT, k0 + (k - k0) * (t - e0[which]) // (e[which] - e0[which])
    return ABOVE, curve[-1][0]


def order(c):
    return c[1] * 2 + (c[0] == ABOVE)


def curve_at(curve, k):
    """The p50 curve at k, linear and rounded down, or None outside it."""
    for i, (ki, e) in enumerate(curve):
        if ki < k:
            continue
        if ki == k:
            return e[0]
        if i == 0:
            return None
        k0, e0 = curve[i - 1]
        a, b, dk = e0[0], e[0], ki - k0
        if b >= a:
            return a + (b - a) * (k - k0) // dk
        return a - ((a - b) * (k - k0) + dk - 1) // dk
    return None


def position(lo, hi):
    """Where 33 stands against [lo, hi] (bench/ceiling.c position())."""
    if hi[0] != ABOVE and hi[1] < LINUX:
        return "above"
    if (lo[0] == AT and lo[1] > LINUX) or (lo[0] == ABOVE and lo[1] >= LINUX):
        return "below"
    return "inside"


def solve(curve, side):
    """One W's solution, as the guest's ceiling record point holds it."""
    full = full_cost(side)
    kstar = crossing(curve, 0, full[0])
    lo = crossing(curve, 2, full[1])
    hi = crossing(curve, 1, full[2])
    if order(lo) > order(kstar):
        lo = kstar
    if order(hi) < order(kstar):
        hi = kstar
    out = {"full_p50": full[0], "full_lo": full[1], "full_hi": full[2],
           "k": kstar[1], "k_where": kstar[0], "k_lo": lo[1], "k_lo_where": lo[0],
           "k_hi": hi[1], "k_hi_where": hi[0], "linux_pos": position(lo, hi)}
    r33 = curve_at(curve, LINUX)
    if r33 is not None:
        out["range33"] = r33
    return out


def run_ceiling(run):
    """{way: {"targets", "points": [{"w", ...}], "why_not"?}} of one run, and
    the answer (way, w) or None: what the guest's ceiling records say."""
    inp = Inputs(run)
    out, chosen = {}, None
    aw = inp.answer_w()
    for way in WAYS:
        points = []
        for w in inp.ws:
            side = inp.side(way, w)
            if side is None or not inp.curve[way]:
                continue
            p = dict(w=w, **solve(inp.curve[way], side))
            if chosen is None and w == aw and way in ("unicast", "local"):
                chosen = (way, w)
                p["answer"] = True
            points.append(p)
        entry = {"targets": inp.targets.get(way) or 0, "points": points,
                 "curve": inp.curve[way]}
        if not points:
            entry["why_not"] = inp.why_none(way)
        out[way] = entry
    return inp, out, chosen


def fmt_k(where, k):
    return {BELOW: "<=", ABOVE: ">"}.get(where, "") + str(k)


class Ceiling:
    """The ceiling of several runs of one setup, pooled with the run as the unit."""

    def __init__(self, runs):
        self.runs = runs
        self.per_run = [run_ceiling(r) for r in runs]
        # INVLPGB's own records only for its way: the model's cost is its.
        recs = [rec for inp, _, _ in self.per_run for rec in inp.records
                if not rec.get("emulated")]
        self.why = caveats(runs, recs)
        self.why_way = {way: caveats(runs, recs + [r for inp, _, _ in self.per_run
                                                   for r in inp.by_way[way]])
                        for way in WAYS}
        self.missing_interval = any(inp.missing_interval for inp, _, _ in self.per_run)

    def qualifier(self):
        return NOT_HARDWARE + ", ".join(t for t, _ in self.why) if self.why else ""

    def no_data(self):
        if not any(o[w]["points"] for _, o, _ in self.per_run for w in WAYS):
            why = "records without p50_lo/p50_hi (an older build)" if self.missing_interval \
                else "no refill records, or no flush records to weigh them against " \
                "(bench=primitives,shootdown)"
            return f"no data: {why}"
        return None

    def pooled(self, way):
        """[(w, summary dict)] of one way over the runs."""
        ws = []
        for _, o, _ in self.per_run:
            ws += [p["w"] for p in o[way]["points"] if p["w"] not in ws]
        out = []
        for w in ws:
            pts = [p for _, o, _ in self.per_run for p in o[way]["points"] if p["w"] == w]
            out.append((w, self.pool(pts)))
        return out

    def pool(self, pts):
        """K* over runs: one run's own, or the geometric mean of the runs'
        K* (those with a crossing) with a t interval on their logs."""
        s = {"runs": len(pts), "answer": any(p.get("answer") for p in pts)}
        r33 = [p["range33"] for p in pts if p.get("range33")]
        gm = lambda v: v[0] if len(v) == 1 else stats.geomean(v)  # noqa: E731
        s["range33"] = gm(r33) if r33 else None
        s["full"] = gm([max(p["full_p50"], 1) for p in pts])
        if len(pts) == 1:
            p = pts[0]
            s.update(k=fmt_k(p["k_where"], p["k"]), lo=fmt_k(p["k_lo_where"], p["k_lo"]),
                     hi=fmt_k(p["k_hi_where"], p["k_hi"]), linux_pos=p["linux_pos"],
                     interval="within the run",
                     k_value=p["k"] if p["k_where"] == AT else None)
            return s
        at = [p["k"] for p in pts if p["k_where"] == AT and p["k"] > 0]
        off = [p for p in pts if p["k_where"] != AT]
        if len(at) < 2:
            where = off[0]["k_where"] if off else AT
            s.update(k=fmt_k(where, stats.median([p["k"] for p in pts])), lo="-", hi="-",
                     linux_pos="below" if where == ABOVE and pts[0]["k"] >= LINUX else
                     "above" if where == BELOW else "inside",
                     interval=f"{len(off)} of {len(pts)} runs outside the measured K range",
                     k_value=None)
            return s
        logs = [math.log(k) for k in at]
        mean = sum(logs) / len(logs)
        sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (len(logs) - 1))
        half = stats.t_quantile(0.05, len(logs) - 1) * sd / math.sqrt(len(logs))
        # Whole pages, rounded outwards: 33 is judged against what is shown.
        lo, hi = math.floor(math.exp(mean - half)), math.ceil(math.exp(mean + half))
        pos = "above" if hi < LINUX else "below" if lo > LINUX else "inside"
        s.update(k=f"{math.exp(mean):.0f}", lo=str(lo), hi=str(hi), linux_pos=pos,
                 interval=f"t over {len(at)} runs (df {len(at) - 1})" +
                 (f"; {len(off)} more outside the measured K range" if off else ""),
                 k_value=math.exp(mean))
        return s

    def answer(self):
        """(way, w, summary) of the answer, or None."""
        for way in ("unicast", "local"):
            for w, s in self.pooled(way):
                if s["answer"]:
                    return way, w, s
        return None

    def lines(self):
        """The section's text lines, after its title."""
        gone = self.no_data()
        if gone:
            return [gone]
        out = [self.qualifier() or "a hardware answer (bare metal)"]
        if len(self.runs) == 1:
            out.append(ONE_RUN)
        out.append("K* = pages at which flushing one by one costs what a full flush and "
                   "the refill of W pages cost; [interval]; Linux's 33 against it")
        for way in WAYS:
            pooled = self.pooled(way)
            if not pooled:
                why = self.per_run[0][1][way].get("why_not", "no data")
                out.append(f"  {way}: none: {why}")
                continue
            for w, s in pooled:
                at33 = "" if s["range33"] is None else \
                    f"; at 33: one by one {s['range33']:,.0f} cyc, full + refill " \
                    f"{s['full']:,.0f} cyc"
                extra = [t for t, _ in self.why_way[way] if (t, _) not in self.why]
                out.append(f"  {way} W {w}: K* {s['k']} [{s['lo']}, {s['hi']}] "
                           f"({s['interval']}); 33 is {s['linux_pos']}{at33}"
                           + ("  <- the answer" if s["answer"] else "")
                           + (f" ({NOT_HARDWARE}{', '.join(extra)})" if extra else ""))
        ans = self.answer()
        if ans:
            way, w, s = ans
            verdict = {"below": f"Linux's 33 is below K* ({s['k']}): between 34 and K* pages "
                       "it flushes everything where page by page would be cheaper",
                       "above": f"Linux's 33 is above K* ({s['k']}): from K* to 33 pages it "
                       "flushes page by page where a full flush would be cheaper",
                       "inside": "Linux's 33 is within K*'s interval: no difference shown"}
            out.append(f"answer ({way}, W {w}): " + verdict[s["linux_pos"]] +
                       (f" ({self.qualifier()})" if self.why else ""))
        return out

    def render(self):
        return "\n".join(["", "ceiling (tlb_single_page_flush_ceiling = 33):"] +
                         ["  " + ln for ln in self.lines()])

    def markdown(self):
        return "\n".join(["", "## The flush ceiling", ""] +
                         [f"- {ln.strip()}" for ln in self.lines()]) + "\n"

    def as_json(self):
        ans = self.answer()
        return {"linux": LINUX, "runs": len(self.runs), "no_data": self.no_data(),
                "hardware_answer": not self.why and not self.no_data(),
                "not_hardware": [{"tag": t, "why": w} for t, w in self.why],
                "not_hardware_by_way": {way: [{"tag": t, "why": w} for t, w in why]
                                        for way, why in self.why_way.items()},
                "ways": {way: [dict(w=w, **s) for w, s in self.pooled(way)] for way in WAYS},
                "answer": None if not ans else dict(way=ans[0], w=ans[1], **ans[2]),
                "per_run": [{way: {k: v for k, v in o[way].items() if k != "curve"}
                             for way in WAYS} for _, o, _ in self.per_run]}


def draw(plt, ceil, new_figure):
    """Cost against K for the answer's way: the range flush's p50 (its
    interval shaded), the full flush + refill of each W (dashed), K* marked
    on each, and Linux's 33. The first run's curve; K* of the pooled runs."""
    gone = ceil.no_data()
    if gone:
        return None, gone
    ans = ceil.answer()
    way = ans[0] if ans else next(w for w in WAYS if ceil.per_run[0][1][w]["points"])
    inp, out, _ = ceil.per_run[0]
    curve = out[way]["curve"]
    fig, axes = new_figure(plt)
    ax = axes[0]
    ks = [k for k, _ in curve]
    ax.plot(ks, [e[0] for _, e in curve], marker="o", color="black",
            label=f"{way}: flush K pages one by one (p50)")
    ax.fill_between(ks, [e[1] for _, e in curve], [e[2] for _, e in curve], color="0.8",
                    label="its median interval" + (f" ({ceil.runs[0].name})"
                                                   if len(ceil.runs) > 1 else ""))
    for i, (_, o, _) in enumerate(ceil.per_run[1:]):
        other = o[way]["curve"]
        ax.plot([k for k, _ in other], [e[0] for _, e in other], color="0.5", linewidth=0.8,
                label="the other runs (p50)" if i == 0 else None)
    colours = ("tab:blue", "tab:orange", "tab:green", "tab:red")
    for i, (w, s) in enumerate(ceil.pooled(way)):
        c = colours[i % len(colours)]
        ax.axhline(s["full"], color=c, linestyle="--",
                   label=f"full flush + refill of W={w}" + (" (answer)" if s["answer"] else ""))
        if s["k_value"]:
            ax.plot([s["k_value"]], [s["full"]], marker="X", markersize=12, color=c,
                    linestyle="none", label=f"K* {s['k']} [{s['lo']}, {s['hi']}]")
        else:  # no crossing within the measured K: an arrow at the edge
            edge = ks[-1] if s["k"].startswith(">") else ks[0]
            ax.plot([edge], [s["full"]], marker=">" if edge == ks[-1] else "<",
                    markersize=10, color=c, linestyle="none",
                    label=f"K* {s['k']}: no crossing within the measured K")
    ax.axvline(LINUX, color="tab:purple", linestyle=":", linewidth=2,
               label="Linux's ceiling: 33")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("pages flushed (K)")
    ax.set_ylabel("cycles (p50)")
    ax.legend(fontsize="small", loc="upper left", framealpha=0.8)
    ax.grid(True, which="both", alpha=0.3)
    runs = len(ceil.runs)
    ax.set_title(f"break-even K*: {runs} run{'s' if runs != 1 else ''}"
                 + ("; one run: its own interval, launch variance not in it" if runs == 1
                    else "; t over runs"),
                 fontsize="medium")
    fig.suptitle(f"flush ceiling ({way})" + (f"\n{ceil.qualifier()}" if ceil.why else ""))
    return fig, None


class Records:
    """The records of one console (checklog's), as run_ceiling reads a Run."""

    def __init__(self, records):
        self.records = records

    def results(self, bench=None):
        return [r for r in self.records if r.get("type") == "result" and
                (bench is None or r.get("bench") == bench)]


POINT_KEYS = ("w", "full_p50", "full_lo", "full_hi", "k", "k_where", "k_lo", "k_lo_where",
              "k_hi", "k_hi_where", "linux_pos", "range33", "answer")


def agreement(run):
    """Where the guest's `ceiling` records and the ceiling computed here from
    the same run's result records differ: a list of problems (empty: they
    agree to the cycle and the page)."""
    guest = {r.get("way"): r for r in run.records if r.get("type") == "ceiling"}
    inp, out, _ = run_ceiling(run)
    if not guest:
        # The guest prints none without refill records; nor is there one here.
        return [] if not inp.ws else ["no ceiling record"]
    probs = []
    for way in WAYS:
        g, h = guest.get(way), out[way]
        if g is None:
            probs.append(f"{way}: no ceiling record for it")
            continue
        if g.get("targets") != h["targets"]:
            probs.append(f"{way}: targets {g.get('targets')} here {h['targets']}")
        if g.get("why_not") != h.get("why_not"):
            probs.append(f"{way}: why_not {g.get('why_not')!r}, here {h.get('why_not')!r}")
        gp = [{k: p.get(k) for k in POINT_KEYS} for p in g.get("points", [])]
        hp = [{k: p.get(k) for k in POINT_KEYS} for p in h["points"]]
        if len(gp) != len(hp):
            probs.append(f"{way}: {len(gp)} points, here {len(hp)}")
        for a, b in zip(gp, hp):
            diff = [k for k in POINT_KEYS if a[k] != b[k]]
            if diff:
                probs.append(f"{way} W {a['w']}: " + ", ".join(
                    f"{k} {a[k]} here {b[k]}" for k in diff))
    return probs
