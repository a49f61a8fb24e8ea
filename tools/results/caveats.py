"""Why a run's figures are not the hardware's: read, never decided, here.

The guest decides (bench/findings_calc.c, the one rule) and prints the
run's own tags once, in its findings record's `caveats` list (what the
machine is: QEMU TCG, RDTSC trapped, another hypervisor, CPUs taking
turns, ...), and each finding's in that finding's `not_hardware` list (the
machine's tags plus its records' own: INVLPGB emulated, delayed). The host
takes the union over runs and explains each tag in words; a tag it has no
words for is shown as the guest printed it.

A run without a findings record (a build before the findings, or a run
that did not reach the end) has no caveats to read: the answer says "no
data" for it instead of guessing.
"""

NOT_HARDWARE = "not a hardware answer here: "
NO_FINDINGS = ("no findings record (a build before the findings record, or a run that did "
               "not finish)")

# The guest's tags in words (the vocabulary, not the rule).
EXPLAIN = {
    "INVLPGB emulated": "INVLPGB is the software model's (invlpgb=emulate; records marked "
                        "emulated): its cost is the model's, not the instruction's",
    "delayed": "delay_handler= (a test aid) added cycles to a strategy's responder "
               "handlers",
    "QEMU TCG": "under QEMU TCG the CPUs are emulated, by one host thread for all vCPUs by "
                "default (single-threaded TCG: a responder runs only when the initiator "
                "yields), so every time is the emulator's",
    "RDTSC trapped": "RDTSC traps to the hypervisor (env rdtsc_trapped, as under kvm-pvm): "
                     "every timestamp costs a VM exit",
    "hypervisor": "under a hypervisor: IPIs are virtualized (VM exits), not the hardware's",
    "CPUs take turns": "the CPUs were seen not running at the same time (the concurrency "
                       "probe, env cpus_concurrent): whatever needs them side by side is the "
                       "host's time-sharing, not the TLB's cost",
    "VM suspected": "CPUID cost as much as a VM exit although CPUID.1:ECX[31] (the "
                    "hypervisor bit) is clear: a hypervisor that hides itself",
    "SMIs while timing": "the CPU took system management interrupts while the experiments "
                         "ran (the smi records): firmware ran inside the timings, unseen by "
                         "the TSC reads around them",
    "TSC not invariant": "the TSC is not invariant (CPUID 0x80000007 EDX[8] clear): its rate "
                         "may change with the CPU's frequency, so cycles are not time",
}


def findings_record(run):
    """The run's findings record (the last one), or None."""
    recs = [r for r in run.records if r.get("type") == "findings"]
    return recs[-1] if recs else None


def tags_of(value):
    """A list of tag strings from a record field, whatever it holds."""
    if not isinstance(value, list):
        return []
    return [t for t in value if isinstance(t, str)]


def run_tags(run, section=None):
    """The tags of one run: its findings record's `caveats`, and with
    section (a key of the record: "crossover", "worker_loss", ...) that
    finding's `not_hardware` too; None without a findings record."""
    rec = findings_record(run)
    if rec is None:
        return None
    tags = []
    if section is not None:
        part = rec.get(section)
        if isinstance(part, dict):
            tags = tags_of(part.get("not_hardware"))
    # The finding's own order (the guest's), then the run's not yet named.
    return tags + [t for t in tags_of(rec.get("caveats")) if t not in tags]


def union(runs, section=None):
    """[(tag, reason)] over runs, in the order first seen; a tag that only
    some of the runs have names them. Runs without a findings record are
    left out (the caller says no data for them)."""
    seen, where = [], {}
    read = [(run, run_tags(run, section)) for run in runs]
    read = [(run, tags) for run, tags in read if tags is not None]
    for run, tags in read:
        for t in tags:
            if t not in where:
                seen.append(t)
                where[t] = []
            where[t].append(run.name)
    out = []
    for t in seen:
        text = EXPLAIN.get(t, t)
        if len(where[t]) < len(read):
            text += f" (in {', '.join(where[t])})"
        out.append((t, text))
    return out


def missing(runs):
    """The names of the runs that have no findings record."""
    return [run.name for run in runs if findings_record(run) is None]


def qualifier(why):
    """'' for a hardware answer, else 'not a hardware answer here: TAG, TAG'."""
    return NOT_HARDWARE + ", ".join(t for t, _ in why) if why else ""


def figure_line(runs, section=None, counts=False):
    """The line under a figure's title: why its numbers are not the
    hardware's (the runs' tags, with section that finding's too), '' for
    a hardware answer. counts: the figure shows counts, exact on any
    machine, and names the run's tags only as where it ran. A run without
    a findings record is named: its caveats are unknown, not absent."""
    why = union(runs, section)
    if counts:
        text = "exact counts, an answer on any machine" + \
            (f" (ran under: {', '.join(t for t, _ in why)})" if why else "")
    else:
        text = qualifier(why)
    gone = missing(runs)
    if gone:
        text += ("; " if text else "") + f"caveats unknown (no findings record): {', '.join(gone)}"
    return text
