"""The QEMU cases' table (tests/qemu/cases.tsv): its rows as Case objects,
what each needs of this machine, and which ones a command line chooses.
tests/qemu/runner.py boots and judges them; tests/qemu/soak.py shares the
machine probes.

Importing this module puts tools/ and tools/results/ on the path, for the
runner and the modules beside it.
"""

import fnmatch
import os
import re
import shlex
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# No __pycache__ beside the sources (nothing to ignore or to commit by mistake).
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tools", "results"))
sys.path.insert(0, HERE)

import checklog  # noqa: E402
import exitcodes  # noqa: E402
import run_bochs  # noqa: E402
import run_qemu  # noqa: E402

CASES_FILE = os.path.join(HERE, "cases.tsv")
LOG_DIR = os.path.join(ROOT, "build", "test-logs")
QEMU10 = os.path.join(ROOT, "build", "qemu10", "usr", "bin", "qemu-system-x86_64")
LINUX_DIR = os.path.join(ROOT, "build", "linux")  # tools/fetch-linux.sh, make linux
OVMF = ("/usr/share/OVMF/OVMF_CODE_4M.fd", "/usr/share/OVMF/OVMF_VARS_4M.fd")
COLUMNS = ("name", "group", "boot", "machine", "smp", "cpu", "status",
           "timeout", "args", "options", "checks")
# run-qemu.sh's exit status -> the guest's EXIT: STATUS that must be printed.
GUEST_STATUS = {ours: guest for guest, ours in exitcodes.GUEST_STATUS.items()}


class Case:
    """One row of cases.tsv."""

    def __init__(self, fields, where):
        row = dict(zip(COLUMNS, fields))
        self.where = where
        self.name = row["name"]
        self.group = row["group"]
        self.boot = row["boot"]
        self.machine = row["machine"]
        self.smp = int(row["smp"])
        self.cpu = row["cpu"]
        self.status = int(row["status"])
        self.timeout = int(row["timeout"])
        self.args = [decode_escapes(w) for w in words(row["args"])]
        self.options = words(row["options"])
        self.expect_text, self.expect_fields = [], {}
        self.absent_text, self.pre_text, self.last_line = [], [], []
        self.expect_boot, self.tsc, self.needs = None, False, []
        self.mem_bytes = 0
        self.stopped, self.within, self.noconsole = False, None, False
        self.sweep = None
        self.reclaim = self.flushloop = self.ceiling = False
        self.timeline = None  # None: not checked; else the budget in % (0: none)
        for item in words(row["checks"]):
            self.add_check(item)
        if self.boot in ("bios", "uefi"):
            self.needs.append("grub")
        if self.boot == "uefi":
            self.needs.append("ovmf")
        if "--qemu10" in self.options:
            self.needs.append("qemu10")
        # --emulator bochs: run-qemu.sh boots it under Bochs (its own
        # options: tools/run_bochs.py); the machine column is '-'.
        self.emulator = "qemu"
        for i, opt in enumerate(self.options[:-1]):
            if opt == "--emulator":
                self.emulator = self.options[i + 1]
        if self.emulator == "bochs":
            self.needs.append("bochs")
        # --linux: Debian's kernel with linux/'s workloads (docs/linux.md;
        # its own options: tools/run_linux.py), skipped where no kernel
        # could be unpacked.
        self.linux = "--linux" in self.options
        if self.linux:
            self.needs.append("linux")
        # --iso PATH: relative to the repository; `make iso` builds
        # build/shootdown.iso before the cases run.
        self.iso = None
        for i, opt in enumerate(self.options[:-1]):
            if opt == "--iso":
                self.iso = os.path.join(ROOT, self.options[i + 1])
                self.options[i + 1] = self.iso
        if self.accel() == "kvm":
            self.needs.append("kvm")
        if self.stopped and self.status != exitcodes.E_ABORT:
            raise ValueError("'stopped' goes with status 3")

    def accel(self):
        """The accelerator the case asks for: tcg unless its options say
        otherwise, so that what TCG shows (stale entries, the host's TSC)
        is what the checks see on any machine."""
        opts = self.options
        for i, opt in enumerate(opts[:-1]):
            if opt == "--accel":
                return opts[i + 1]
        return "tcg"

    def add_check(self, item):
        """One word of the checks column (see cases.tsv)."""
        key, _, val = item.partition("=")
        if key == "boot":
            self.expect_boot = val
        elif key in REGEX_CHECKS:
            re.compile(val)  # a bad regex fails the table, not the case
            getattr(self, REGEX_CHECKS[key]).append(val)
        elif key == "field":
            k, v = checklog.parse_field(val)
            self.expect_fields[k] = v
        elif key == "needs":
            self.needs.append(val)
        elif item == "tsc":
            self.tsc = True
        elif key == "mem":
            self.mem_bytes = parse_size(val)
        elif item in ("reclaim", "flushloop", "stopped", "noconsole", "ceiling"):
            setattr(self, item, True)
        elif key == "within":
            self.within = float(val)
        elif key == "timeline":
            self.timeline = float(val) if val else 0.0
        elif key == "sweep":
            pages, targets, strategies = val.split(";")
            self.sweep = ([int(p) for p in pages.split(",")],
                          [int(t) for t in targets.split(",")],
                          strategies.split(","))
        else:
            raise ValueError(f"unknown check '{item}'")


# The checks that are regular expressions, and the list each goes into.
REGEX_CHECKS = {"text": "expect_text", "notext": "absent_text",
                "pretext": "pre_text", "lastline": "last_line"}


def parse_size(text):
    """QEMU-style sizes: 128M, 8G, or bytes."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    if text[-1:].upper() in units:
        return int(text[:-1]) * units[text[-1].upper()]
    return int(text)


def words(text):
    """A column as shell words; '-' is empty."""
    return [] if text == "-" else shlex.split(text)


def decode_escapes(word):
    """A kernel argument as bytes: \\xNN becomes that byte, so that the
    table can hold control and non-ASCII bytes in plain text."""
    raw = os.fsencode(word)
    return re.sub(rb"\\x([0-9a-fA-F]{2})", lambda m: bytes([int(m.group(1), 16)]), raw)


def load_cases(path=CASES_FILE):
    """The cases in the table, in order; raises ValueError naming the line
    of a malformed row."""
    cases, names = [], set()
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            # Columns are separated by one or more tabs (to align them);
            # an empty column is written '-'.
            fields = [x for x in line.split("\t") if x != ""]
            where = f"{os.path.relpath(path, ROOT)}:{lineno}"
            if len(fields) != len(COLUMNS):
                raise ValueError(f"{where}: {len(fields)} columns, expected {len(COLUMNS)}")
            try:
                case = Case(fields, where)
            except (ValueError, re.error) as exc:
                raise ValueError(f"{where}: {exc}") from None
            if case.name in names:
                raise ValueError(f"{where}: case '{case.name}' twice")
            if case.status not in GUEST_STATUS:
                raise ValueError(f"{where}: status {case.status} is not "
                                 f"{', '.join(map(str, sorted(GUEST_STATUS)))}")
            names.add(case.name)
            cases.append(case)
    return cases


def have_tools():
    """What is available here: {need: None if present, else why not}."""
    grub = None
    for tool, pkg in (("grub-mkrescue", "grub-common"), ("xorriso", "xorriso"),
                      ("mformat", "mtools")):
        if not shutil.which(tool):
            grub = f"no {tool} (apt-get install {pkg})"
    for plat, pkg in (("i386-pc", "grub-pc-bin"), ("x86_64-efi", "grub-efi-amd64-bin")):
        if not os.path.isdir(f"/usr/lib/grub/{plat}"):
            grub = f"no GRUB for {plat} (apt-get install {pkg})"
    return {
        "grub": grub,
        "ovmf": None if all(os.path.isfile(f) for f in OVMF)
        else "no OVMF firmware (apt-get install ovmf)",
        "qemu10": None if os.access(QEMU10, os.X_OK)
        else "no QEMU 10 (run tools/fetch-qemu10.sh)",
        "bochs": run_bochs.missing(),
        "linux": None if all(os.path.isfile(os.path.join(LINUX_DIR, f))
                             for f in ("vmlinuz", "release.txt", os.path.join("modules", "order")))
        else "no Linux kernel unpacked under build/linux (tools/fetch-linux.sh could not "
             "fetch it here: see make check's dependency step)",
    }


def kvm_problem(case, qemu):
    """None if KVM can run this case's machine here, else why not."""
    try:
        q = run_qemu.Qemu(qemu or shutil.which("qemu-system-x86_64") or "qemu-system-x86_64")
    except OSError as exc:
        return str(exc)
    opts = run_qemu.Options()
    opts.machine, opts.smp, opts.cpu = case.machine, case.smp, None
    if case.cpu != "-":
        opts.cpu = case.cpu
    _, why = run_qemu.try_kvm(q, opts)
    return why



def longest_first(cases):
    """The cases in the order the pool should start them: the longest first
    (by the time each took when it last ran here, build/test-logs/NAME.secs,
    else by its timeout), so that no long case starts last and runs alone
    while the other jobs are idle. Ties keep the file's order."""
    def cost(case):
        try:
            with open(os.path.join(LOG_DIR, case.name + ".secs")) as f:
                return float(f.read())
        except (OSError, ValueError):
            return float(case.timeout)
    return sorted(cases, key=cost, reverse=True)


def select(cases, opts):
    """The cases chosen by --group and --case (shell patterns)."""
    chosen = cases
    if opts.group:
        groups = {g for arg in opts.group for g in arg.split(",")}
        chosen = [c for c in chosen if c.group in groups]
    if opts.case:
        chosen = [c for c in chosen if any(fnmatch.fnmatchcase(c.name, p) for p in opts.case)]
    return chosen


def list_cases(cases):
    """--list: the table, readable."""
    print(f"{'name':28} {'group':9} {'boot':6} {'machine':7} {'smp':>3} {'cpu':9} "
          f"{'status':>6} {'timeout':>7}  args")
    for c in cases:
        args = " ".join(a.decode("latin-1").encode("unicode_escape").decode() for a in c.args)
        print(f"{c.name:28} {c.group:9} {c.boot:6} {c.machine:7} {c.smp:>3} {c.cpu:9} "
              f"{c.status:>6} {c.timeout:>7}  {args}")

