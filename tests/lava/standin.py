#!/usr/bin/env python3
"""QEMU standing in for a lab server behind LAVA (tests/lava/run.py).

    standin.py power-on STATE   start the "server": its firmware (SeaBIOS
                                or OVMF) PXE-boots GRUB from QEMU's user
                                network, whose TFTP root is LAVA's
    standin.py power-off STATE  pull the plug (kill QEMU)
    standin.py console STATE    the serial console, as telnet to a ser2net
                                port gives it: stdin and stdout bridged to
                                COM1's TCP socket, reconnected across power
                                cycles (a ser2net port stays open)

STATE is a directory that run.py fills: config.json ({"firmware": "bios"
or "uefi", "port": N, "tftp": DIR, "bootfile": PATH in DIR, "qemu": BIN,
"smp": N, "vars": OVMF variables file}), then qemu.pid.

Like a server and unlike run-qemu.sh, it has no isa-debug-exit: the kernel
prints EXIT: STATUS=N and halts, and only LAVA's power-off ends QEMU.
"""

import json
import os
import select
import signal
import socket
import subprocess
import sys
import time

OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"


def config(state):
    with open(os.path.join(state, "config.json"), encoding="utf-8") as f:
        return json.load(f)


def power_off(state):
    pidfile = os.path.join(state, "qemu.pid")
    try:
        with open(pidfile, encoding="ascii") as f:
            pid = int(f.read().strip())
    except (OSError, ValueError):
        return 0
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    for _ in range(50):  # until the port is free for the next power-on
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    os.unlink(pidfile)
    return 0


def power_on(state):
    power_off(state)
    c = config(state)
    args = [c["qemu"], "-daemonize", "-pidfile", os.path.join(state, "qemu.pid"),
            "-display", "none", "-machine", "q35", "-accel", "tcg", "-cpu", "max",
            "-smp", str(c["smp"]), "-m", "1G", "-no-reboot",
            "-serial", f"tcp:127.0.0.1:{c['port']},server=on,wait=off",
            "-netdev", f"user,id=net0,tftp={c['tftp']},bootfile={c['bootfile']}",
            "-device", "virtio-net-pci,netdev=net0,bootindex=0"]
    if c["firmware"] == "uefi":
        args += ["-drive", f"if=pflash,format=raw,readonly=on,file={OVMF_CODE}",
                 "-drive", f"if=pflash,format=raw,file={c['vars']}"]
    return subprocess.run(args, check=False).returncode


def console(state):
    """Bytes both ways between this process's stdio and the COM1 socket."""
    port = config(state)["port"]
    out = sys.stdout.buffer
    while True:
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=1)
        except OSError:
            time.sleep(0.2)
            continue
        sock.setblocking(False)
        while True:
            ready, _, _ = select.select([sock, sys.stdin], [], [])
            if sock in ready:
                try:
                    data = sock.recv(4096)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    break  # powered off: wait for the next power-on
                out.write(data)
                out.flush()
            if sys.stdin in ready:
                data = os.read(sys.stdin.fileno(), 4096)
                if not data:
                    return 0
                try:
                    sock.sendall(data)
                except OSError:
                    break
        sock.close()


def main(argv):
    if len(argv) != 3 or argv[1] not in ("power-on", "power-off", "console"):
        print(__doc__, file=sys.stderr)
        return 2
    return {"power-on": power_on, "power-off": power_off,
            "console": console}[argv[1]](argv[2])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
