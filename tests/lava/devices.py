"""The device dictionaries of lava/devices as a LAVA server renders them.

A server renders a device's dictionary (lava/devices/NAME.jinja2) with
jinja2 over its device types, with the job's `context:` as the variables,
and hands the dispatcher the YAML that comes out. This does the same with
the server's own device types: those of Debian's lava-server package,
downloaded (`apt-get download`) and unpacked (`dpkg-deb -x`) under
build/lava-server, never installed, and ours (lava/device-types) in front
of them. tests/lava/run.py runs lava-run on what this renders.
"""

import glob
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEVICES = os.path.join(ROOT, "lava", "devices")
OUR_TYPES = os.path.join(ROOT, "lava", "device-types")
UNPACKED = os.path.join(ROOT, "build", "lava-server")
SERVER_TYPES = os.path.join(UNPACKED, "root", "usr", "share", "lava-server", "device-types")
# The job context every template of lava/jobs gives (context: arch).
JOB_CONTEXT = {"arch": "x86_64"}
# Which devices each job kind is meant for (docs/lab.md, "Devices").
# What a sanboot job fetches the ISO from, as the device would reach it:
# an address on QEMU's user network (its host is 10.0.2.2), no host on the
# internet; rendering and validating only substitute it.
SANBOOT_ISO_URL = "http://10.0.2.2/shootdown.iso"
MEANT = {"qemu": ("qemu-01",), "grub-tftp": ("x86-ser2net", "x86-ipmi"),
         "ipxe-sanboot": ("x86-ser2net", "x86-ipmi")}


class Unavailable(Exception):
    """The server's device types or jinja2 cannot be had here; says why."""


def names():
    """Every device dictionary of lava/devices, by name."""
    return sorted(os.path.basename(p)[:-len(".jinja2")]
                  for p in glob.glob(os.path.join(DEVICES, "*.jinja2")))


def server_types():
    """The lava-server package's device-types directory, unpacked under
    build/ the first time; raises Unavailable."""
    if os.path.isfile(os.path.join(SERVER_TYPES, "base.jinja2")):
        return SERVER_TYPES
    os.makedirs(UNPACKED, exist_ok=True)
    for old in glob.glob(os.path.join(UNPACKED, "lava-server_*.deb")):
        os.unlink(old)
    p = subprocess.run(["apt-get", "download", "lava-server"], cwd=UNPACKED,
                       capture_output=True, text=True, check=False)
    debs = glob.glob(os.path.join(UNPACKED, "lava-server_*.deb"))
    if p.returncode or not debs:
        raise Unavailable("Debian's lava-server package could not be downloaded "
                          f"(apt-get download lava-server: {(p.stderr or p.stdout).strip()[-200:]})")
    p = subprocess.run(["dpkg-deb", "-x", debs[0], os.path.join(UNPACKED, "root")],
                       capture_output=True, text=True, check=False)
    if p.returncode or not os.path.isfile(os.path.join(SERVER_TYPES, "base.jinja2")):
        raise Unavailable(f"dpkg-deb -x {os.path.basename(debs[0])}: {p.stderr.strip()[-200:]}"
                          " (no device-types/base.jinja2 in it)")
    return SERVER_TYPES


def server_version():
    """The lava-server package's version, from the .deb's name."""
    debs = glob.glob(os.path.join(UNPACKED, "lava-server_*.deb"))
    return os.path.basename(debs[0]).split("_")[1] if debs else "?"


def render(name, **context):
    """The device configuration of lava/devices/NAME.jinja2 as the server
    renders it for a job whose context is JOB_CONTEXT plus context."""
    try:
        import jinja2
    except ImportError as exc:
        raise Unavailable("jinja2 not installed (python3-jinja2)") from exc
    # As the server's loader: the dictionaries, then the device types
    # (the local ones first, as /etc/lava-server's come before /usr/share's).
    env = jinja2.Environment(loader=jinja2.FileSystemLoader([DEVICES, OUR_TYPES, server_types()]),
                             trim_blocks=True, autoescape=False)
    return env.get_template(f"{name}.jinja2").render(**dict(JOB_CONTEXT, **context))


def source(name):
    """The text of lava/devices/NAME.jinja2."""
    with open(os.path.join(DEVICES, f"{name}.jinja2"), encoding="utf-8") as f:
        return f.read()


def render_text(text, **context):
    """A dictionary given as text, rendered as render() renders a file."""
    try:
        import jinja2
    except ImportError as exc:
        raise Unavailable("jinja2 not installed (python3-jinja2)") from exc
    env = jinja2.Environment(loader=jinja2.FileSystemLoader([DEVICES, OUR_TYPES, server_types()]),
                             trim_blocks=True, autoescape=False)
    return env.from_string(text).render(**dict(JOB_CONTEXT, **context))
