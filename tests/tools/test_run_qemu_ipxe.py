#!/usr/bin/env python3
"""Self-test of run-qemu.sh --boot ipxe's options (tools/run_qemu.py), with
--dry-run: nothing is built or started. iPXE under SeaBIOS gets QEMU's user
network (TFTP of a private folder, an iPXE script as DHCP's boot file) and
a virtio NIC to boot from; iPXE under UEFI cannot load the ELF, so every
spelling of that exits 2 with the reason; the options that need GRUB are
refused.

Run: python3 tests/tools/test_run_qemu_ipxe.py  (make launcher-test runs it).
"""

import sys
import unittest

sys.dont_write_bytecode = True

from dryrun import launch  # noqa: E402


class BootIpxe(unittest.TestCase):
    def test_network_boot_command(self):
        status, err = launch("--boot", "ipxe", "--smp", "2", "--", "bench=none")
        self.assertEqual(status, 0, err)
        cmd = err.splitlines()[-1]
        self.assertRegex(cmd, r"-netdev user,id=net0,tftp=\S+/tftp,bootfile=boot\.ipxe")
        self.assertIn("-device virtio-net-pci,netdev=net0,bootindex=0", cmd)
        self.assertNotIn("-kernel", cmd)
        self.assertNotIn("-cdrom", cmd)
        self.assertNotIn("media=cdrom", cmd)

    def test_uefi_exits_2_with_the_reason(self):
        for args in (("--boot", "ipxe-uefi"), ("--boot", "uefi-ipxe"),
                     ("--boot", "ipxe-efi"),
                     ("--boot", "ipxe", "--qemu-arg", "-bios",
                      "--qemu-arg", "/usr/share/ovmf/OVMF.fd"),
                     ("--boot", "ipxe", "--qemu-arg", "-drive", "--qemu-arg",
                      "if=pflash,format=raw,file=/usr/share/OVMF/OVMF_CODE_4M.fd")):
            status, err = launch(*args)
            self.assertEqual(status, 2, args)
            self.assertIn("iPXE's UEFI build cannot load the ELF", err, args)
            self.assertIn("Exec format error", err, args)

    def test_grub_options_refused(self):
        for args, why in ((("--keys", "6"), "GRUB's menu"),
                          (("--mem-holes", "4"), "GRUB cuts the holes"),
                          (("--iso", "run-qemu.sh"), "--iso needs")):
            status, err = launch("--boot", "ipxe", *args)
            self.assertEqual(status, 2, args)
            self.assertIn(why, err, args)

    def test_script_words(self):
        status, err = launch("--boot", "ipxe", "--", "seed=${x}")
        self.assertEqual(status, 2)
        self.assertIn("iPXE script line", err)


if __name__ == "__main__":
    unittest.main()
