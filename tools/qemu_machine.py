"""run-qemu's machine (tools/run_qemu.py): which QEMU, which accelerator
(KVM where it can start the machine, else TCG, and why), and the firmware
and boot media arguments (UEFI, iPXE, a USB stick, memory holes). The
Bochs and Linux launchers take the QEMU and the accelerator from here too.
"""

import os
import shutil
import subprocess
import sys

from qemu_watch import EnvError, UsageError, err  # noqa: F401

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QEMU10 = os.path.join(ROOT, "build", "qemu10", "usr", "bin", "qemu-system-x86_64")
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"

# CPU models tried under KVM, in order. `host` is the real CPU; QEMU 7.2 and
# 10 on some nested KVMs (kvm-pvm) abort on it ("failed to set MSR 0x10a",
# IA32_ARCH_CAPABILITIES), and run the same CPU without that MSR.
KVM_CPU_MODELS = ("host", "host,-arch-capabilities")
TCG_CPU_MODEL = "max"

PROBE_TIMEOUT_S = 20

IPXE_UEFI = ("--boot ipxe under UEFI: iPXE's UEFI build cannot load the ELF "
             "(\"Exec format error\": it boots EFI images, and multiboot only in its "
             "BIOS build); boot it through GRUB with --boot uefi, or iPXE under "
             "SeaBIOS with --boot ipxe")
# virtio-net-pci's ROM, QEMU's default for it (the BIOS and UEFI builds of
# iPXE in one file; Debian's ipxe-qemu), where QEMU 7.2 and 10 look for it.
# Named, not passed: with romfile= set to it, SeaBIOS found no ROM on the
# NIC (QEMU 7.2) and booted nothing.
IPXE_ROMS = ("/usr/lib/ipxe/qemu/efi-virtio.rom", "/usr/share/qemu/efi-virtio.rom")
IPXE_SCRIPT = "boot.ipxe"


def uefi_firmware_args(extra):
    """Whether --qemu-arg words give the machine UEFI firmware (OVMF)."""
    return any("ovmf" in w.lower() or "pflash" in w or w == "-bios" for w in extra)


def ipxe_rom():
    """The virtio-net iPXE ROM; raises EnvError naming the package."""
    for rom in IPXE_ROMS:
        if os.path.isfile(rom):
            return rom
    raise EnvError(f"--boot ipxe: no iPXE ROM ({' or '.join(IPXE_ROMS)}): "
                   f"apt-get install ipxe-qemu")


def ipxe_args(o, kernel, tmp):
    """QEMU's user network serving the ELF and an iPXE script over TFTP
    (DHCP's boot file), and a virtio NIC whose iPXE ROM SeaBIOS boots."""
    if not o.dry_run:
        ipxe_rom()
    tftp = os.path.join(tmp, "tftp")
    if not o.dry_run:
        os.makedirs(tftp, exist_ok=True)
        shutil.copyfile(kernel, os.path.join(tftp, "shootdown.elf"))
        with open(os.path.join(tftp, IPXE_SCRIPT), "w") as f:
            # `kernel` fetches the image relative to the script's URL;
            # iPXE passes the URL as the first word of the command line,
            # which the kernel skips as the image's path.
            f.write("#!ipxe\nkernel shootdown.elf " + cmdline_of(o) + "\nboot\n")
    return ["-netdev", f"user,id=net0,tftp={tftp},bootfile={IPXE_SCRIPT}",
            "-device", "virtio-net-pci,netdev=net0,bootindex=0"]


# --mem-holes: a hole of HOLE bytes every HOLE_EVERY from HOLES_FROM up.
HOLES_FROM, HOLE_EVERY, HOLE = 64 << 20, 1 << 20, 4 << 10


def mem_bytes(size):
    """--mem (checked: digits and at most one unit) in bytes."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    if size[-1] in units:
        return int(size[:-1]) * units[size[-1]]
    return int(size) << 20  # QEMU's -m: MiB without a unit


def cutmem_commands(holes):
    """GRUB's cutmem FROM TO for each hole (sizes in KiB: GRUB's units)."""
    lines = []
    for i in range(holes):
        base = HOLES_FROM + i * HOLE_EVERY
        lines.append(f"cutmem {base >> 10}K {(base + HOLE) >> 10}K\n")
    return "".join(lines)


# --- QEMU and its firmware ----------------------------------------------------

class Qemu:
    """A QEMU binary with the directories and environment it runs with."""

    def __init__(self, path, data_dirs=()):
        self.path = path
        self.data_dirs = list(data_dirs)
        self.env = dict(os.environ)
        # A QEMU unpacked outside /usr (tools/fetch-qemu10.sh) must use its
        # own ROMs, SeaBIOS, modules and libraries, not the system QEMU's:
        # -L directories are searched before the built-in ones.
        prefix = os.path.dirname(os.path.dirname(os.path.realpath(path)))
        if prefix not in ("/usr", "/usr/local"):
            own = [d for d in (f"{prefix}/share/qemu", f"{prefix}/share/seabios")
                   if os.path.isdir(d)]
            self.data_dirs = own + self.data_dirs
            lib = f"{prefix}/lib/x86_64-linux-gnu"
            if os.path.isdir(lib):
                old = self.env.get("LD_LIBRARY_PATH")
                self.env["LD_LIBRARY_PATH"] = lib + (f":{old}" if old else "")
                if os.path.isdir(f"{lib}/qemu"):
                    self.env["QEMU_MODULE_DIR"] = f"{lib}/qemu"

    def argv(self, *args):
        """QEMU's command line: the binary, its data dirs, then args."""
        cmd = [self.path]
        for d in self.data_dirs:
            cmd += ["-L", d]
        return cmd + list(args)


def find_qemu(o):
    """The Qemu to run; raises EnvError naming what is missing (but for
    --dry-run, which prints the command with the binary's name)."""
    if o.qemu is None:
        path = shutil.which("qemu-system-x86_64")
        if not path and o.dry_run:
            err("dry run: qemu-system-x86_64 not installed (apt-get install qemu-system-x86)")
            path = "qemu-system-x86_64"
        elif not path:
            raise EnvError("qemu-system-x86_64 not found: apt-get install qemu-system-x86")
    elif not os.access(o.qemu, os.X_OK) and not o.dry_run:
        if o.qemu == QEMU10:
            raise EnvError("QEMU 10 is not unpacked: run tools/fetch-qemu10.sh "
                           "(or tools/install-deps.sh --qemu10)")
        raise EnvError(f"--qemu: '{o.qemu}' is not an executable")
    else:
        path = o.qemu
    return Qemu(path, o.data_dirs)


# --- which accelerator --------------------------------------------------------

def kvm_device_problem():
    """None if /dev/kvm can be opened read/write here, else why not."""
    if not os.path.exists("/dev/kvm"):
        return "no /dev/kvm (no KVM on this machine)"
    try:
        os.close(os.open("/dev/kvm", os.O_RDWR))
    except OSError as exc:
        return f"/dev/kvm cannot be opened by {user_name()} ({exc.strerror}; not in group kvm?)"
    return None


def user_name():
    try:
        import pwd
        return pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError):
        return f"uid {os.getuid()}"


def kvm_kind():
    """'kvm-pvm' (a shadow-paging KVM for nested use) or 'kvm' (hardware)."""
    return "kvm-pvm" if os.path.isdir("/sys/module/kvm_pvm") else "kvm"


def probe(qemu, machine, cpu, smp, mem, accel="kvm"):
    """Start QEMU paused with this accelerator and CPU model and quit at
    once: None if it could, else QEMU's last words. Catches what fails
    before the guest runs (a CPU model or MSR the accelerator refuses, a
    CPU count it cannot have), in about 0.1 s."""
    cmd = qemu.argv("-nodefaults", "-no-user-config", "-display", "none", "-S",
                    "-machine", machine, "-accel", accel, "-cpu", cpu,
                    "-smp", str(smp), "-m", mem, "-qmp", "stdio")
    script = b'{"execute":"qmp_capabilities"}\n{"execute":"quit"}\n'
    try:
        p = subprocess.run(cmd, input=script, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=qemu.env, timeout=PROBE_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return f"QEMU did not start and quit within {PROBE_TIMEOUT_S} s"
    except OSError as exc:
        return f"QEMU could not be started: {exc.strerror}"
    if p.returncode == 0 and b'"host-qmp-quit"' in p.stdout:
        return None
    lines = [ln for ln in p.stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
    errors = [ln for ln in lines if "error" in ln] or [ln for ln in lines if "warning" not in ln]
    return errors[0] if errors else f"QEMU exited {p.returncode}"


class Choice:
    """The accelerator and CPU model a run takes, and why."""

    def __init__(self, accel, cpu, why):
        self.accel, self.cpu, self.why = accel, cpu, why

    def line(self):
        return f"accel {self.accel}, cpu {self.cpu}: {self.why}"


def try_kvm(qemu, o):
    """(cpu model, None) where KVM starts this machine, else (None, why)."""
    problem = kvm_device_problem()
    if problem:
        return None, problem
    models = [o.cpu] if o.cpu else KVM_CPU_MODELS
    failures = []
    for model in models:
        why = probe(qemu, o.machine, model, o.smp, o.mem)
        if why is None:
            return model, None
        failures.append(f"-cpu {model}: {why}")
    return None, "QEMU cannot start KVM here: " + "; ".join(failures)


def choose_accel(qemu, o):
    """The Choice for this run; raises EnvError when --accel kvm cannot work."""
    tcg_cpu = o.cpu or TCG_CPU_MODEL
    if o.accel == "tcg":
        return Choice("tcg", tcg_cpu, "asked for (--accel tcg)")
    kind = kvm_kind()
    problem = kvm_device_problem()
    if o.accel == "auto" and problem:
        return Choice("tcg", tcg_cpu, f"no usable KVM: {problem}")
    if o.accel == "auto" and kind == "kvm-pvm":
        # Measured on such machines: the default suite takes minutes
        # instead of about a minute, RDTSC traps (~8,600 cycles) and the
        # hypervisor re-walks the page tables, so stale TLB entries cannot
        # be observed and the verifier's negative controls SKIP. TCG shows
        # them.
        return Choice("tcg", tcg_cpu, "/dev/kvm here is kvm-pvm (shadow paging: stale TLB "
                      "entries are hidden, RDTSC traps); TCG shows stale entries "
                      "(--accel kvm runs under kvm-pvm anyway)")
    model, why = try_kvm(qemu, o)
    if model is None:
        if o.accel == "kvm":
            raise EnvError(f"--accel kvm: {why}")
        return Choice("tcg", tcg_cpu, f"KVM unusable ({why})")
    if o.accel == "kvm":
        return Choice("kvm", model, f"asked for (--accel kvm), {kind}")
    return Choice("kvm", model, f"hardware KVM ({kind}) starts this machine")


def usb_stick_args(o, iso, tmp):
    """The ISO as a USB stick behind an xHCI or EHCI controller, the first
    thing to boot. The ISO itself is the stick (snapshot=on: what the guest
    writes is not kept), or with --stick-size a sparse copy of it of that
    size, as dd leaves a larger blank stick."""
    stick = iso
    if o.stick_size is not None:
        stick = os.path.join(tmp, "stick.img")
        if not o.dry_run:
            size = mem_bytes(o.stick_size) if o.stick_size[-1] in "KMGT" \
                else int(o.stick_size)
            if size < os.path.getsize(iso):
                raise UsageError(f"--stick-size {o.stick_size}: smaller than the image "
                                 f"({os.path.getsize(iso)} bytes)")
            shutil.copyfile(iso, stick)
            os.truncate(stick, size)
    hc = {"xhci": "qemu-xhci", "ehci": "usb-ehci"}[o.usb_controller]
    return ["-device", f"{hc},id=usbhc",
            "-drive", f"if=none,id=stick,format=raw,file={stick},snapshot=on",
            "-device", "usb-storage,bus=usbhc.0,drive=stick,bootindex=0"]


def cmdline_of(o):
    """The kernel reads its arguments as one line of words."""
    return " ".join(o.kargs)
