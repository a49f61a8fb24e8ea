#!/usr/bin/env python3
"""Self-test of run-qemu.sh --media usb's options (tools/run_qemu.py), with
--dry-run: nothing is built or started. The ISO becomes a USB stick behind
xHCI (the default) or EHCI, the first thing to boot, with no CD-ROM drive;
--stick-size makes it a larger stick; the combinations that make no sense
are refused (exit 2). The boots themselves are tests/qemu/cases.tsv's usb
group.

Run: python3 tests/tools/test_run_qemu_usb.py  (make launcher-test runs it).
"""

import sys
import unittest

sys.dont_write_bytecode = True

from dryrun import launch  # noqa: E402


class MediaUsb(unittest.TestCase):
    def test_xhci_by_default(self):
        for boot in ("bios", "uefi"):
            status, err = launch("--boot", boot, "--media", "usb", "--", "bench=none")
            self.assertEqual(status, 0, err)
            cmd = err.splitlines()[-1]
            self.assertIn("-device qemu-xhci,id=usbhc", cmd)
            self.assertRegex(cmd, r"-drive if=none,id=stick,format=raw,file=\S+\.iso,snapshot=on")
            self.assertIn("-device usb-storage,bus=usbhc.0,drive=stick,bootindex=0", cmd)
            self.assertNotIn("media=cdrom", cmd)
            self.assertEqual("pflash" in cmd, boot == "uefi")

    def test_ehci_and_stick_size(self):
        status, err = launch("--boot", "uefi", "--media", "usb", "--usb-controller", "ehci",
                             "--stick-size", "1G")
        self.assertEqual(status, 0, err)
        cmd = err.splitlines()[-1]
        self.assertIn("-device usb-ehci,id=usbhc", cmd)
        self.assertRegex(cmd, r"file=\S+/stick\.img,snapshot=on")

    def test_cdrom_stays_the_default(self):
        status, err = launch("--boot", "bios")
        self.assertEqual(status, 0, err)
        self.assertIn("media=cdrom", err.splitlines()[-1])
        self.assertNotIn("usb-storage", err.splitlines()[-1])
        self.assertNotIn("xhci", err.splitlines()[-1])

    def test_refused(self):
        for args, words in ((("--media", "usb"), "--boot bios or --boot uefi"),
                            (("--boot", "ipxe", "--media", "usb"), "--boot bios or"),
                            (("--boot", "bios", "--media", "floppy"), "--media: 'floppy'"),
                            (("--boot", "bios", "--usb-controller", "ehci"), "go with --media usb"),
                            (("--boot", "bios", "--stick-size", "1G"), "go with --media usb"),
                            (("--boot", "bios", "--media", "usb", "--usb-controller", "ohci"),
                             "--usb-controller: 'ohci'"),
                            (("--boot", "bios", "--media", "usb", "--stick-size", "big"),
                             "--stick-size: 'big'")):
            status, err = launch(*args)
            self.assertEqual(status, 2, args)
            self.assertIn(words, err, args)


if __name__ == "__main__":
    unittest.main(verbosity=2)
