#!/usr/bin/env python3
"""make ci-lint: the CI templates as GitHub and GitLab would read them.

- ci/github-actions.yml against GitHub's workflow schema
  (@action-validator/cli), ci/gitlab-ci.yml against GitLab's CI schema
  (gitlab-ci-local --preview, which bundles it), both pinned in
  tests/ci/package-lock.json and installed by tools/install-deps.sh --ci.
  Each validator must also reject a copy of its template with one
  mistake in it, so a validator that passes everything fails here.
- Every command of the templates that runs a tool of ours, run as it is
  written but unbooted: tools/ci-run.sh with --check-args (its options and
  run-qemu.sh's checked), tools/install-deps.sh with --dry-run.
- What the templates promise: JUnit published on each (GitLab:
  artifacts:reports:junit; GitHub: a report step and the step summary),
  a GitLab job for shared runners (TCG), artifacts kept on failure.

Where npm's validators cannot be had (no node, a node older than 20 for
gitlab-ci-local, tests/ci/node_modules not installed) their tests are
skipped, saying why; the rest still run.

Run: python3 tests/ci/test_ci_lint.py
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GITHUB = os.path.join(ROOT, "ci", "github-actions.yml")
GITLAB = os.path.join(ROOT, "ci", "gitlab-ci.yml")
BIN = os.path.join(HERE, "node_modules", ".bin")
GITLAB_CI_LOCAL = os.path.join(HERE, "node_modules", "gitlab-ci-local", "dist", "index.js")
SET_SHIM = os.path.join(HERE, "set-methods.mjs")
NOT_INSTALLED = "tests/ci/node_modules not installed (tools/install-deps.sh --ci)"
# GitLab's keywords that are not jobs.
GITLAB_GLOBAL = {"default", "include", "stages", "variables", "workflow", "image",
                 "services", "cache", "before_script", "after_script"}


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def node_major():
    """The node on PATH's major version, or None."""
    node = shutil.which("node")
    if not node:
        return None
    out = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
    m = re.match(r"v(\d+)\.", out)
    return int(m.group(1)) if m else None


def action_validator(path):
    """(status, output) of @action-validator/cli on path."""
    exe = os.path.join(BIN, "action-validator")
    p = subprocess.run([exe, path], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def gitlab_preview(text):
    """(status, stdout, stderr) of gitlab-ci-local --preview with schema
    validation on text as a project's .gitlab-ci.yml (a git work tree of
    its own: gitlab-ci-local reads the project's git data)."""
    with tempfile.TemporaryDirectory(prefix="ci-lint.") as tmp:
        with open(os.path.join(tmp, ".gitlab-ci.yml"), "w", encoding="utf-8") as f:
            f.write(text)
        subprocess.run(["git", "init", "-q", tmp], check=True)
        env = dict(os.environ, HOME=tmp)
        p = subprocess.run(["node", "--import", SET_SHIM, GITLAB_CI_LOCAL,
                            "--preview", "--json-schema-validation"], cwd=tmp,
                           capture_output=True, text=True, timeout=120, env=env)
        return p.returncode, p.stdout, p.stderr


def gitlab_jobs(doc):
    """{name: job} of the jobs that run (not hidden, not a keyword), with
    `extends` of hidden templates resolved one level deep."""
    jobs = {}
    for name, job in doc.items():
        if name.startswith(".") or name in GITLAB_GLOBAL:
            continue
        merged = {}
        for base in ([job["extends"]] if isinstance(job.get("extends"), str)
                     else job.get("extends", [])):
            merged.update(doc[base])
        merged.update(job)
        jobs[name] = merged
    return jobs


def github_runs(doc):
    """Every `run:` of every step, one command a line."""
    lines = []
    for job in doc["jobs"].values():
        for step in job["steps"]:
            if "run" in step:
                lines += [ln for ln in step["run"].replace("\\\n", " ").splitlines() if ln.strip()]
    return lines


def unbooted(line):
    """The template's command as argv that checks and boots nothing, or
    None when it runs no tool of ours."""
    argv = shlex.split(line)
    if argv and argv[0] == "sudo":
        argv = argv[1:]
    if not argv or not argv[0].startswith("tools/"):
        return None
    if argv[0] == "tools/ci-run.sh":
        return [argv[0], "--check-args", *argv[1:]]
    if argv[0] == "tools/install-deps.sh":
        return [*argv, "--dry-run"]
    raise AssertionError(f"{line!r}: a tool this test does not know how to run unbooted")


class Templates(unittest.TestCase):
    """The templates' content: what they promise, and their commands."""

    @classmethod
    def setUpClass(cls):
        cls.github = yaml.safe_load(read(GITHUB))
        cls.gitlab = yaml.safe_load(read(GITLAB))

    def run_unbooted(self, lines):
        ran = 0
        for line in lines:
            argv = unbooted(line)
            if argv is None:
                continue
            p = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=120,
                               stdin=subprocess.DEVNULL)
            self.assertEqual(p.returncode, 0, f"{shlex.join(argv)}: {p.stdout}{p.stderr}")
            if argv[0] == "tools/ci-run.sh":
                self.assertIn("arguments checked: would", p.stdout)
            ran += 1
        return ran

    def test_github_commands(self):
        lines = github_runs(self.github)
        self.assertTrue(any(ln.startswith("tools/ci-run.sh ") for ln in lines), lines)
        self.assertEqual(self.run_unbooted(lines), 2)  # install-deps --job and ci-run.sh
        # Only what the job needs: no optional package in the job.
        self.assertIn("sudo tools/install-deps.sh --job", lines)

    def test_gitlab_commands(self):
        jobs = gitlab_jobs(self.gitlab)
        self.assertEqual(sorted(jobs), ["shootdown", "shootdown-tcg"])
        for name, job in jobs.items():
            self.assertEqual(self.run_unbooted(job["script"]), 1, name)

    def test_junit_published(self):
        for name, job in gitlab_jobs(self.gitlab).items():
            self.assertEqual(job["artifacts"]["reports"]["junit"], "out/junit.xml", name)
            self.assertEqual(job["artifacts"]["when"], "always", name)
        steps = self.github["jobs"]["shootdown"]["steps"]
        report = [s for s in steps if "junit" in s.get("uses", "")]
        self.assertEqual(len(report), 1, steps)
        self.assertEqual(report[0]["with"]["report_paths"], "out/junit.xml")
        self.assertEqual(report[0]["if"], "always()")
        self.assertEqual(self.github["permissions"]["checks"], "write")

    def test_gitlab_tcg_job_for_shared_runners(self):
        job = gitlab_jobs(self.gitlab)["shootdown-tcg"]
        self.assertNotIn("tags", job)  # any shared runner takes it
        self.assertIn("--accel tcg", " ".join(job["script"]))
        self.assertIn("kvm", gitlab_jobs(self.gitlab)["shootdown"]["tags"])

    def test_unknown_tool_is_an_error(self):
        with self.assertRaises(AssertionError):
            unbooted("tools/new-thing.sh out")
        self.assertIsNone(unbooted("sudo udevadm trigger --name-match=kvm"))


class PackageNames(unittest.TestCase):
    """Every package install-deps.sh may ask for is one this machine's
    archive has (Debian 12 here; of "a|b", either)."""

    def test_names_in_the_archive(self):
        if not shutil.which("apt-cache"):
            self.skipTest("no apt-cache: not a Debian or Ubuntu machine")
        out = subprocess.run([os.path.join(ROOT, "tools", "install-deps.sh"), "--list"],
                             capture_output=True, text=True, check=True).stdout.split()
        self.assertIn("qemu-system-x86", out)
        names = [n for entry in out for n in entry.split("|")]
        policy = subprocess.run(["apt-cache", "policy", *names], capture_output=True,
                                text=True).stdout
        # One block a package: "NAME:" at the line's start, then its candidate.
        known = set(re.findall(r"(?m)^(\S+):\n(?:  .*\n)*?  Candidate: [^(]", policy))
        lacking = [e for e in out if not known & set(e.split("|"))]
        if lacking == out:
            self.skipTest("apt-cache knows no package at all (apt-get update never ran)")
        self.assertEqual(lacking, [], "not in this machine's archive")


class Schemas(unittest.TestCase):
    """The templates against the published schemas, and each validator
    against a template with one mistake."""

    def setUp(self):
        if not os.path.isdir(os.path.join(HERE, "node_modules")):
            self.skipTest(NOT_INSTALLED)

    def test_github_schema(self):
        status, out = action_validator(GITHUB)
        self.assertEqual(status, 0, out)

    def test_github_schema_rejects_a_mistake(self):
        broken = read(GITHUB).replace("runs-on:", "runs_on:", 1)
        self.assertNotEqual(broken, read(GITHUB))
        with tempfile.NamedTemporaryFile("w", suffix=".yml") as f:
            f.write(broken)
            f.flush()
            status, out = action_validator(f.name)
        self.assertNotEqual(status, 0, out)
        self.assertIn("runs-on", out)

    def gitlab_usable(self):
        major = node_major()
        if major is None:
            self.skipTest("node not found (Debian package nodejs): gitlab-ci-local not run")
        if major < 20:
            self.skipTest(f"gitlab-ci-local 4.75 needs node 20 or later (here: {major})")

    def test_gitlab_schema(self):
        self.gitlab_usable()
        status, out, err = gitlab_preview(read(GITLAB))
        self.assertEqual(status, 0, err[-3000:])
        self.assertIn("json schema validated", err)
        # The preview is GitLab's reading: the jobs with their extends.
        jobs = gitlab_jobs(yaml.safe_load(out))
        self.assertEqual(sorted(jobs), ["shootdown", "shootdown-tcg"])
        for job in jobs.values():
            self.assertEqual(job["artifacts"]["reports"]["junit"], "out/junit.xml")

    def test_gitlab_schema_rejects_a_mistake(self):
        self.gitlab_usable()
        broken = read(GITLAB).replace("when: always", "when: sometimes", 1)
        self.assertNotEqual(broken, read(GITLAB))
        status, _, err = gitlab_preview(broken)
        self.assertNotEqual(status, 0, err[-3000:])
        self.assertIn("Invalid .gitlab-ci.yml configuration", err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
