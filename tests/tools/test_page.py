#!/usr/bin/env python3
"""index.html of `tools/shootdown.py plot` in a real headless browser.

The page a reader opens (tools/results/page.py), of a synthetic run of
every experiment (tests/qemu/results_synth.py) and of a sample log with a
failing check, is loaded by Debian's chromium (tests/tools/browser.py,
the DevTools protocol over a pipe): it must load, show every figure the
manifest lists (each image loaded, at its natural 960x600), and the
console must have said nothing at level error (no failed resource, no
script error). Where chromium is not installed the test prints a SKIP
line naming the package and passes (make check goes on).

    python3 tests/tools/test_page.py [--keep DIR]   (make page-test)

--keep DIR leaves the pages and a PNG of each as the browser drew it in
DIR, for a reader to look at.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SAMPLES = os.path.join(ROOT, "tests", "qemu", "samples")
sys.dont_write_bytecode = True
for path in (HERE, os.path.join(ROOT, "tests", "qemu"), os.path.join(ROOT, "tools"),
             os.path.join(ROOT, "tools", "results")):
    if path not in sys.path:
        sys.path.insert(0, path)

import browser  # noqa: E402
import results_synth as synth  # noqa: E402

KEEP = None  # --keep DIR


def plot(path, outdir):
    """Runs plot; returns the manifest."""
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "shootdown.py"), "plot",
                           path, "-o", outdir], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=300, check=False)
    if proc.returncode != 0:
        raise AssertionError(f"plot {path} exited {proc.returncode}: {proc.stdout[-800:]}")
    with open(os.path.join(outdir, "manifest.json")) as f:
        return json.load(f)


class InBrowser(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.exe = browser.find_chromium()
        if cls.exe is None:
            raise unittest.SkipTest("chromium is not installed (Debian package chromium, "
                                    "an optional package of tools/install-deps.sh)")
        cls.tmp = KEEP or tempfile.mkdtemp(prefix="page-test-")
        run = os.path.join(cls.tmp, "synthetic.jsonl")
        synth.write_jsonl(run, synth.make_records(emulated=True, caveats=["QEMU TCG"]))
        cls.pages = {}
        for name, path in (("synthetic", run), ("fail", os.path.join(SAMPLES, "good-fail.log"))):
            out = os.path.join(cls.tmp, name)
            cls.pages[name] = (out, plot(path, out))

    @classmethod
    def tearDownClass(cls):
        if not KEEP:
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def seen(self, name):
        out, manifest = self.pages[name]
        index = os.path.join(out, "index.html")
        got = browser.load("file://" + index, self.exe)
        if KEEP:
            browser.screenshot("file://" + index, os.path.join(out, "index.png"),
                               exe=self.exe)
        return got, manifest

    def check_page(self, name):
        got, manifest = self.seen(name)
        self.assertEqual(got["errors"], [], "the console said")
        drawn = [e for e in manifest["figures"] if "skipped" not in e]
        self.assertTrue(drawn)
        images = {i["src"]: i for i in got["images"]}
        self.assertEqual(sorted(images), sorted(e["png"] for e in drawn))
        for e in drawn:
            img = images[e["png"]]
            with self.subTest(figure=e["name"]):
                self.assertTrue(img["complete"])
                self.assertEqual((img["width"], img["height"]), (e["width"], e["height"]))
        return got

    def test_every_figure_loads_without_console_errors(self):
        got = self.check_page("synthetic")
        self.assertEqual(got["title"], "shootdown: synthetic.jsonl")
        heads = got["headings"]
        for h in ("Status", "Findings", "Verdicts", "Figures", "Tables", "Environment"):
            self.assertIn(h, heads)
        self.assertLess(heads.index("Findings"), heads.index("Figures"))
        self.assertIn("Not a hardware answer here, because:", got["text"])

    def test_failures_first_as_the_browser_shows_them(self):
        got = self.check_page("fail")
        text = got["text"]
        self.assertIn("FAILED: 3 passed, 1 failed, 0 skipped (EXIT: STATUS=1)", text)
        verdicts = text[text.index("\nVerdicts\n"):text.index("\nFigures\n")]
        # The passes are folded away: the browser shows their count only.
        self.assertTrue(verdicts.strip().split("\n")[1].startswith(
            "FAIL: selftest: injected failure"), verdicts)
        self.assertIn("3 passed, and log: complete and consistent (checklog)", verdicts)
        self.assertNotIn("smp: bringup: all cpus online", verdicts)


def main():
    global KEEP
    args = sys.argv[1:]
    if args[:1] == ["--keep"] and len(args) >= 2:
        KEEP = os.path.abspath(args[1])
        os.makedirs(KEEP, exist_ok=True)
        args = args[2:]
    if browser.find_chromium() is None:
        print("page: SKIP: chromium is not installed (Debian package chromium, an "
              "optional package of tools/install-deps.sh): index.html not opened in a browser")
        return 0
    prog = unittest.main(argv=[sys.argv[0]] + args, exit=False, verbosity=1)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
