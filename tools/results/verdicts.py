"""A run's verdicts for CI systems: TAP version 13 and JUnit XML.

A hardware run's console, saved from a BMC, has the same PASS/FAIL/SKIP
lines as a QEMU run's; turning each into a TAP test point or a JUnit
testcase lets any CI system show and gate on it. One more point is added
(unless --no-log-check): whether the log itself is complete and follows the
contract (tools/checklog.py's checks), because a run that died half-way
has no FAIL line for what it never got to, and must not look green.
"""

import xml.etree.ElementTree as ET

import exitcodes

LOG_CHECK_NAME = "log: complete and consistent (checklog)"


class Point:
    """One test point: kind (PASS/FAIL/SKIP), name, why (a FAIL's or SKIP's
    reason, a PASS's detail or None), text (the line)."""

    def __init__(self, kind, name, why, text):
        self.kind, self.name, self.why, self.text = kind, name, why, text


def points(run, log_check=True):
    """The run's verdicts as Points, plus the log check."""
    out = [Point(v.kind, v.name, v.why, v.text) for v in run.verdicts]
    if log_check:
        if run.problems:
            why = f"{len(run.problems)} problem(s): " + "; ".join(run.problems[:5])
            out.append(Point("FAIL", LOG_CHECK_NAME, why, why))
        else:
            out.append(Point("PASS", LOG_CHECK_NAME, None, ""))
    return out


def gate_status(run, log_check=True):
    """tap/junit --status: 1 when a point failed, else the run's EXIT
    status as run-qemu.sh maps it (77 when every check skipped; see
    exitcodes.gate_status)."""
    failed = any(p.kind == "FAIL" for p in points(run, log_check))
    return exitcodes.gate_status(failed, run.status)


def tap_escape(text):
    """A TAP description: '#' starts a directive, so it is escaped, and a
    line break would end the point."""
    return text.replace("\\", "\\\\").replace("#", "\\#").replace("\r", " ").replace("\n", " ")


def yaml_string(text):
    """A double-quoted YAML scalar (the YAMLish subset TAP 13 readers take)."""
    out = []
    for c in text:
        if c in "\\\"":
            out.append("\\" + c)
        elif " " <= c <= "~":
            out.append(c)
        else:
            out.append(f"\\x{ord(c):02x}")
    return '"' + "".join(out) + '"'


def to_tap(run, log_check=True):
    """TAP 13 text: the version, the plan, one point per verdict; a FAIL
    carries its reason and line in a YAML block, a SKIP its reason as the
    SKIP directive."""
    pts = points(run, log_check)
    lines = ["TAP version 13", f"1..{len(pts)}"]
    for n, p in enumerate(pts, 1):
        desc = tap_escape(p.name)
        if p.kind == "PASS":
            lines.append(f"ok {n} - {desc}")
            if p.why:  # what was measured (schema 2's PASS detail)
                lines += ["  ---", f"  detail: {yaml_string(p.why)}", "  ..."]
        elif p.kind == "SKIP":
            lines.append(f"ok {n} - {desc} # SKIP {tap_escape(p.why or 'no reason given')}")
        else:
            lines.append(f"not ok {n} - {desc}")
            lines += ["  ---", f"  message: {yaml_string(p.why or '')}",
                      f"  line: {yaml_string(p.text)}", "  ..."]
    if not pts:
        lines[1] = "1..0 # SKIP no verdicts in the log"
    return "\n".join(lines) + "\n"


def classname(name):
    """JUnit groups testcases by class: the name's first path word
    (shootdown, tlb, smp, ...), under 'shootdown.'."""
    head = name.split(": ", 1)[0] if ": " in name else "run"
    return "shootdown." + head.replace(" ", "_")


def xml_safe(text):
    """text without the characters XML 1.0 cannot hold (a damaged serial
    line can carry control bytes): each becomes '?'."""
    return "".join(c if c in "\t\n\r" or " " <= c <= "\ud7ff" or
                   "\ue000" <= c <= "\ufffd" else "?" for c in text or "")


def to_junit(run, log_check=True, suite_name=None):
    """JUnit XML (one testsuite in a testsuites root) as an ElementTree
    Element; env fields go in as properties."""
    pts = points(run, log_check)
    fails = sum(1 for p in pts if p.kind == "FAIL")
    skips = sum(1 for p in pts if p.kind == "SKIP")
    root = ET.Element("testsuites", tests=str(len(pts)), failures=str(fails),
                      errors="0", skipped=str(skips))
    suite = ET.SubElement(root, "testsuite", name=suite_name or run.name,
                          tests=str(len(pts)), failures=str(fails), errors="0",
                          skipped=str(skips))
    props = ET.SubElement(suite, "properties")
    for key, value in env_properties(run.env):
        ET.SubElement(props, "property", name=key, value=xml_safe(value))
    for p in pts:
        case = ET.SubElement(suite, "testcase", classname=xml_safe(classname(p.name)),
                             name=xml_safe(p.name))
        if p.kind == "FAIL":
            fail = ET.SubElement(case, "failure", message=xml_safe(p.why), type="FAIL")
            fail.text = xml_safe(p.text)
        elif p.kind == "SKIP":
            ET.SubElement(case, "skipped", message=xml_safe(p.why))
        elif p.why:  # a PASS's detail: what was measured
            ET.SubElement(case, "system-out").text = xml_safe(p.why)
    return root


def env_properties(env):
    """The env fields worth a JUnit property: where the run ran."""
    if not env:
        return []
    cpu = env.get("cpu") or {}
    pairs = [("version", env.get("version")), ("cpu", cpu.get("brand")),
             ("hypervisor", env.get("hypervisor") or "none"),
             ("cpus_online", env.get("cpus_online")), ("cmdline", env.get("cmdline")),
             ("tsc_khz", env.get("tsc_khz"))]
    return [(k, str(v)) for k, v in pairs if v is not None]


def junit_text(run, log_check=True):
    """to_junit() serialised, with the XML declaration."""
    root = to_junit(run, log_check)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + \
        ET.tostring(root, encoding="unicode") + "\n"
