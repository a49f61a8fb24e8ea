"""The flush ceiling K*: up to how many pages flushing one by one is cheaper
than a full flush plus the refill of the working set it drops.

One place decides each run's ceiling: the guest (bench/ceiling_book.c),
which prints it in its `ceiling` records, one per way, each working set W
a point with K* and its within-run interval, and the curve (K, p50, p50_lo,
p50_hi of the one-by-one flush) it was read from. This tool reads those
records and only pools runs: it redoes no run's arithmetic.

Pooling (the run is the unit; docs/results.md "The flush ceiling"): for
each way and W, the median of the runs' K*, censored runs ranked at their
bound (">512" above every measured value, "<=1" below every one, never
averaged or dropped), with the distribution-free interval over runs that
the sign test gives (order statistics at binomial(n, 1/2) ranks). Where 33
stands comes from that interval alone; one boot decides nothing, so with
one run it is "not determined: one run". The K that keeps one-by-one
flushing under 3,000 ns (Linux's own criterion for 33, `k_3us`) is pooled
the same way, with no verdict.
"""

import math

import caveats
import sections
import vocabulary

WAYS = ("unicast", "local", "broadcast", "invlpgb")
AT, BELOW, ABOVE = "at", "below", "above"
ONE_RUN = "not determined: one run"
CONFIDENCE = 0.95
# Below this coverage the over-runs interval decides nothing (5 runs: 94%).
MIN_COVERAGE = 0.90
NO_RECORDS = ("no data: no ceiling records (a build before the ceiling records, or "
              "primitives did not run)")
CURRENCY = {"initiator": "the initiator's cycles (the flush's latency on CPU 0, and CPU 0's "
                         "own refill on the full side; the responders' on neither)"}


def guest_records(run):
    """{way: the run's first ceiling record of that way}."""
    out = {}
    for rec in run.records:
        if rec.get("type") == "ceiling" and rec.get("way") in WAYS:
            out.setdefault(rec["way"], rec)
    return out


def rank(value):
    """A (where, k) as a number to order by: "<=k" below k, ">k" above."""
    where, k = value
    return (k, {BELOW: 0, AT: 1, ABOVE: 2}[where])


def fmt_k(value):
    where, k = value
    return {BELOW: "<=", ABOVE: ">"}.get(where, "") + str(k)


def sign_ranks(n, confidence=CONFIDENCE):
    """(r, coverage): the interval [x_(r), x_(n+1-r)] of n sorted values
    around their median, r the largest rank whose coverage 1 - 2 P(B < r),
    B ~ binomial(n, 1/2), reaches `confidence`, else 1 (the whole range)."""
    def below(r):  # P(B <= r - 1)
        return sum(math.comb(n, i) for i in range(r)) / 2 ** n
    r = 1
    while r + 1 <= (n + 1) // 2 and 1 - 2 * below(r + 1) >= confidence:
        r += 1
    return r, max(0.0, 1 - 2 * below(r))


def median_text(ordered):
    """The median of values sorted by rank, as text; a censored value is
    never averaged: the median of 372 and >512 is ">372"."""
    n = len(ordered)
    if n % 2:
        return fmt_k(ordered[n // 2])
    a, b = ordered[n // 2 - 1], ordered[n // 2]
    if a == b:
        return fmt_k(a)
    if a[0] == AT and b[0] == AT:
        return f"{(a[1] + b[1]) / 2:g}"
    if a[0] == AT and b[0] == ABOVE:
        return f">{a[1]}"
    if a[0] == BELOW and b[0] == AT:
        return f"<={b[1]}"
    return f"{fmt_k(a)}..{fmt_k(b)}"


def median_value(ordered):
    """The median as a number where no censored value is in it, else None."""
    n = len(ordered)
    mid = ordered[(n - 1) // 2:n // 2 + 1]
    if any(w != AT for w, _ in mid):
        return None
    return sum(k for _, k in mid) / len(mid)


def linux_of(runs):
    """Linux's ceiling (tlb_single_page_flush_ceiling) as the runs' ceiling
    records give it ("linux"), else their builds' vocabulary's."""
    for run in runs:
        for rec in guest_records(run).values():
            if isinstance(rec.get("linux"), int):
                return rec["linux"]
    return vocabulary.BEFORE_THE_RECORD.numbers["linux_ceiling"]


def position(lo, hi, linux):
    """Where Linux's ceiling stands against an interval [lo, hi] over runs."""
    if hi[0] != ABOVE and hi[1] < linux:
        return "above"
    if (lo[0] == AT and lo[1] > linux) or (lo[0] == ABOVE and lo[1] >= linux):
        return "below"
    return "inside"


def pool(values, linux):
    """The runs' K (where, k) pooled: median, over-runs interval, its
    coverage, and where Linux's ceiling stands against it."""
    ordered = sorted(values, key=rank)
    n = len(ordered)
    r, cover = sign_ranks(n)
    lo, hi = ordered[r - 1], ordered[n - r]
    s = {"runs": n, "k": median_text(ordered), "k_value": median_value(ordered),
         "lo": fmt_k(lo), "hi": fmt_k(hi), "coverage": round(cover, 4)}
    if n == 1:
        s["linux_pos"] = ONE_RUN
    elif cover < MIN_COVERAGE:
        s["linux_pos"] = (f"not determined: {n} runs (their interval covers {cover:.0%}; "
                          f"5 runs give 94%)")
    else:
        s["linux_pos"] = position(lo, hi, linux)
    return s


def point_k(p, key="k"):
    return (p.get(f"{key}_where"), p.get(key))


def valid_k(v):
    return v[0] in (AT, BELOW, ABOVE) and isinstance(v[1], int) and not isinstance(v[1], bool)


class Ceiling:
    """The ceiling of several runs of one setup, pooled with the run as the unit."""

    def __init__(self, runs):
        self.runs = runs
        self.per_run = [guest_records(r) for r in runs]
        self.linux = linux_of(runs)
        self.title = f"flush ceiling (Linux: {self.linux} pages)"
        self.why = caveats.union(runs, "ceiling")
        self.unknown = caveats.missing(runs)

    def qualifier(self):
        return caveats.qualifier(self.why)

    def no_data(self):
        if not any(self.per_run):
            return NO_RECORDS
        if not any(rec.get("points") for recs in self.per_run for rec in recs.values()):
            why = next((rec.get("why_not") for recs in self.per_run
                        for rec in recs.values() if rec.get("why_not")), "no points")
            return f"no data: no way had a point ({why})"
        return None

    def currency(self):
        got = [rec.get("currency") for recs in self.per_run for rec in recs.values()]
        return next((c for c in got if c), None)

    def way_tags(self, way):
        """Tags the way's own records carry beyond the ceiling's (INVLPGB
        emulated): from the records' not_hardware text."""
        seen = {t for t, _ in self.why}
        out = []
        for recs in self.per_run:
            text = (recs.get(way) or {}).get("not_hardware") or ""
            for t in text[len(caveats.NOT_HARDWARE):].split(", ") \
                    if text.startswith(caveats.NOT_HARDWARE) else []:
                if t and t not in seen and t not in out:
                    out.append(t)
        return out

    def points(self, way):
        """[(w, [point of each run that has it])] in the order first seen."""
        by_w = {}
        for recs in self.per_run:
            for p in (recs.get(way) or {}).get("points", []):
                if isinstance(p, dict) and valid_k(point_k(p)):
                    by_w.setdefault(p.get("w"), []).append(p)
        return list(by_w.items())

    def pooled(self, way):
        """[(w, summary)] of one way over the runs."""
        out = []
        for w, pts in self.points(way):
            s = pool([point_k(p) for p in pts], self.linux)
            if len(pts) == 1:  # one boot: its own interval, labelled so
                s.update(lo=fmt_k(point_k(pts[0], "k_lo")), hi=fmt_k(point_k(pts[0], "k_hi")),
                         interval="within the run")
            else:
                s["interval"] = f"over {len(pts)} runs: sign test, {s['coverage']:.0%}"
            fulls = sorted(p["full_p50"] for p in pts if isinstance(p.get("full_p50"), int))
            s["full"] = fulls[(len(fulls) - 1) // 2] if fulls else None
            s["answer"] = any(p.get("answer") for p in pts)
            out.append((w, s))
        return out

    def cap(self, way):
        """The K under 3,000 ns one by one over the runs, or None."""
        got = [(r.get("k_3us_where"), r.get("k_3us")) for recs in self.per_run
               for r in [recs.get(way) or {}] if "k_3us" in r]
        got = [v for v in got if valid_k(v)]
        if not got:
            return None
        s = pool(got, self.linux)
        s.pop("linux_pos")
        return s

    def answer(self):
        """(way, w, summary) of the answer (the way and W most runs chose)."""
        votes = {}
        for recs in self.per_run:
            for way in WAYS:
                for p in (recs.get(way) or {}).get("points", []):
                    if isinstance(p, dict) and p.get("answer"):
                        votes[(way, p.get("w"))] = votes.get((way, p.get("w")), 0) + 1
        if not votes:
            return None
        way, w = max(votes, key=lambda key: votes[key])
        s = dict(self.pooled(way))[w]
        return way, w, s

    def verdict(self, s):
        pos = s["linux_pos"]
        if pos == "below":
            return (f"Linux's {self.linux} is below K*'s interval over runs [{s['lo']}, {s['hi']}]: from "
                    f"34 to at least {s['lo']} pages it flushes everything where one by one "
                    "would be cheaper")
        if pos == "above":
            return (f"Linux's {self.linux} is above K*'s interval over runs [{s['lo']}, {s['hi']}]: from "
                    f"{s['hi']} to {self.linux} pages it flushes one by one where a full flush would be "
                    "cheaper")
        if pos == "inside":
            return (f"Linux's {self.linux} is within K*'s interval over runs [{s['lo']}, {s['hi']}]: "
                    "no difference shown")
        return f"where Linux's {self.linux} stands: {pos}"

    def way_lines(self, way):
        pooled = self.pooled(way)
        if not pooled:
            why = next((recs[way].get("why_not") for recs in self.per_run
                        if recs.get(way) and recs[way].get("why_not")), "no data")
            return [f"  {way}: none: {why}"]
        extra = self.way_tags(way)
        tail = f" ({caveats.NOT_HARDWARE}{', '.join(extra)})" if extra else ""
        out = []
        for w, s in pooled:
            out.append(f"  {way} K*(W {w}): {s['k']} [{s['lo']}, {s['hi']}] ({s['interval']}); "
                       f"{self.linux}: {s['linux_pos']}" + ("  <- the answer" if s["answer"] else "")
                       + tail)
        cap = self.cap(way)
        if cap:
            over = "" if cap["runs"] == 1 else \
                f" [{cap['lo']}, {cap['hi']}] (over {cap['runs']} runs)"
            out.append(f"  {way}: one by one under 3,000 ns up to K {cap['k']}{over} "
                       f"(Linux's criterion for {self.linux}: a latency cap, not a "
                       "break-even)")
        return out

    def lines(self):
        """The section's text lines, after its title."""
        gone = self.no_data()
        if gone:
            return [gone]
        out = [self.qualifier() or "a hardware answer (bare metal)"]
        if self.unknown:
            out.append(f"no findings record in {', '.join(self.unknown)}: its caveats are "
                       "not known")
        cur = self.currency()
        out.append("K*(W) = pages up to which flushing one by one costs less than a full "
                   "flush and the refill of W pages, in " + CURRENCY.get(cur, cur or "?") +
                   "; the median over runs, censored runs ranked at their bound")
        for way in WAYS:
            out += self.way_lines(way)
        ans = self.answer()
        if ans:
            way, w, s = ans
            out.append(f"answer ({way}, W {w}): K* {s['k']}; " + self.verdict(s) +
                       (f" ({self.qualifier()})" if self.why else ""))
        return out

    def sections(self):
        """[(title, qualifier, lines)]: the ceiling is one section."""
        gone = self.no_data()
        if gone:
            return [(self.title, "no data", [gone.removeprefix("no data: ")])]
        body = [ln.strip() for ln in self.lines()]
        return [(self.title, body[0], body[1:])]  # lines() opens with the qualifier

    def render(self):
        return sections.text(self.sections())

    def markdown(self):
        return sections.markdown(self.sections())

    def as_json(self):
        ans = self.answer()
        return {"linux": self.linux, "runs": len(self.runs), "no_data": self.no_data(),
                "currency": self.currency(),
                "hardware_answer": not self.why and not self.unknown and not self.no_data(),
                "not_hardware": [{"tag": t, "why": w} for t, w in self.why],
                "not_hardware_by_way": {way: self.way_tags(way) for way in WAYS},
                "ways": {way: [dict(w=w, **s) for w, s in self.pooled(way)] for way in WAYS},
                "k_3us": {way: self.cap(way) for way in WAYS},
                "answer": None if not ans else dict(way=ans[0], w=ans[1], **ans[2])}


def curve_of(rec):
    """[(k, p50, lo, hi)] of a ceiling record's curve."""
    out = []
    for row in (rec or {}).get("curve") or []:
        if isinstance(row, list) and len(row) == 4 and all(isinstance(v, int) for v in row):
            out.append(tuple(row))
    return out


def draw(plt, ceil, new_figure):
    """Cost against K for the answer's way: the range flush's p50 from each
    run's ceiling record (the first run's interval shaded), the median full
    flush + refill of each W (dashed), the pooled K* on each, and 33."""
    gone = ceil.no_data()
    if gone:
        return None, gone
    ans = ceil.answer()
    way = ans[0] if ans else next(w for w in WAYS if ceil.pooled(w))
    curves = [curve_of(recs.get(way)) for recs in ceil.per_run]
    first = next((c for c in curves if c), None)
    if not first:
        return None, f"no data: the {way} ceiling records carry no curve (an older build)"
    fig, axes = new_figure(plt)
    ax = axes[0]
    ks = [c[0] for c in first]
    ax.plot(ks, [c[1] for c in first], marker="o", color="black",
            label=f"{way}: flush K pages one by one (p50)")
    ax.fill_between(ks, [c[2] for c in first], [c[3] for c in first], color="0.8",
                    label="its median interval" + (f" ({ceil.runs[0].name})"
                                                   if len(ceil.runs) > 1 else ""))
    for i, other in enumerate(c for c in curves[1:] if c):
        ax.plot([c[0] for c in other], [c[1] for c in other], color="0.5", linewidth=0.8,
                label="the other runs (p50)" if i == 0 else None)
    colours = ("tab:blue", "tab:orange", "tab:green", "tab:red")
    for i, (w, s) in enumerate(ceil.pooled(way)):
        if s["full"] is None:
            continue
        c = colours[i % len(colours)]
        ax.axhline(s["full"], color=c, linestyle="--",
                   label=f"full flush + refill of W={w}" + (" (answer)" if s["answer"] else ""))
        if s["k_value"] is not None:
            ax.plot([s["k_value"]], [s["full"]], marker="X", markersize=12, color=c,
                    linestyle="none", label=f"K*(W {w}) {s['k']} [{s['lo']}, {s['hi']}]")
        else:  # a censored median: an arrow at the edge
            edge = ks[-1] if s["k"].startswith(">") else ks[0]
            ax.plot([edge], [s["full"]], marker=">" if edge == ks[-1] else "<",
                    markersize=10, color=c, linestyle="none",
                    label=f"K*(W {w}) {s['k']}: beyond the measured K")
    ax.axvline(ceil.linux, color="tab:purple", linestyle=":", linewidth=2,
               label=f"Linux's ceiling: {ceil.linux}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("pages flushed (K)")
    ax.set_ylabel("cycles (p50)")
    ax.legend(fontsize="small", loc="upper left", framealpha=0.8)
    ax.grid(True, which="both", alpha=0.3)
    runs = len(ceil.runs)
    ax.set_title(f"K*(W): {runs} run{'s' if runs != 1 else ''}"
                 + (f"; one run: its own interval, {ceil.linux} not determined" if runs == 1
                    else "; median over runs, sign-test interval"),
                 fontsize="medium")
    fig.suptitle(f"flush ceiling ({way})" + (f"\n{ceil.qualifier()}" if ceil.why else ""))
    return fig, None


def check_records(records):
    """Problems of one console's ceiling records (tests/qemu/runner.py):
    the four ways in order, one currency, no verdict on 33 from one boot,
    the intervals in order, the curve ascending in K, one answer point and
    the findings record's ceiling part naming it."""
    recs = [r for r in records if r.get("type") == "ceiling"]
    if not recs:
        return []  # no refill records: the guest prints none, rightly
    probs = []
    if [r.get("way") for r in recs] != list(WAYS):
        probs.append(f"ways {[r.get('way') for r in recs]}, not {list(WAYS)}")
    answers = []
    for r in recs:
        way = r.get("way")
        if r.get("currency") != "initiator":
            probs.append(f"{way}: currency {r.get('currency')!r}")
        curve = curve_of(r)
        if len(curve) != len(r.get("curve") or []):
            probs.append(f"{way}: a curve row is not [k, p50, lo, hi]")
        if [c[0] for c in curve] != sorted({c[0] for c in curve}):
            probs.append(f"{way}: curve K not ascending")
        if any(not c[2] <= c[1] <= c[3] for c in curve):
            probs.append(f"{way}: curve lo <= p50 <= hi does not hold")
        for p in r.get("points") or []:
            if p.get("linux_pos") != ONE_RUN:
                probs.append(f"{way} W {p.get('w')}: linux_pos {p.get('linux_pos')!r}")
            if not rank(point_k(p, "k_lo")) <= rank(point_k(p)) <= rank(point_k(p, "k_hi")):
                probs.append(f"{way} W {p.get('w')}: k_lo <= k <= k_hi does not hold")
            if p.get("answer"):
                answers.append((way, p))
    if len(answers) > 1:
        probs.append(f"{len(answers)} answer points")
    fnd = [r for r in records if r.get("type") == "findings"]
    part = fnd[-1].get("ceiling") if fnd else None
    if answers and isinstance(part, dict):
        way, p = answers[0]
        got = {k: part.get(k) for k in ("way", "w", "k", "k_where", "linux_pos")}
        want = {"way": way, "w": p.get("w"), "k": p.get("k"), "k_where": p.get("k_where"),
                "linux_pos": ONE_RUN}
        if got != want:
            probs.append(f"findings ceiling {got}, the answer point {want}")
    return probs
