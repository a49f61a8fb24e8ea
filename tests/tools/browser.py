"""A page in a real headless browser (Debian's chromium), with no package
beyond Python's own: the DevTools protocol over --remote-debugging-pipe
(JSON messages, each ended by a NUL byte, written to the browser's fd 3
and read from its fd 4), so no WebSocket client is needed.

load(url) opens the page in a fresh profile, waits for its load event,
and returns what the page showed: every image's URL and natural size,
the headings, and everything the console said at level error (console
errors, uncaught exceptions, and resources that failed to load, which
the browser reports as log entries). screenshot(url, png) draws the
page as the browser does (chromium --screenshot).
"""

import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--disable-default-apps", "--mute-audio", "--hide-scrollbars")
TIMEOUT = 30.0
# What the page showed, read in the page once it has loaded.
PROBE = """JSON.stringify({
  title: document.title,
  headings: [...document.querySelectorAll('h1,h2,h3')].map(h => h.textContent),
  images: [...document.images].map(i => ({src: i.getAttribute('src'), complete: i.complete,
                                          width: i.naturalWidth, height: i.naturalHeight})),
  text: document.body ? document.body.innerText : ''
})"""


def find_chromium():
    """The browser's path, or None."""
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def high_pipe():
    """os.pipe() with both ends moved to fds of 10 or more (close-on-exec)."""
    ends = []
    for fd in os.pipe():
        ends.append(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10))
        os.close(fd)
    return ends


class BrowserError(Exception):
    """The browser did not start, answer or load the page in time."""


class Pipe:
    """One browser process and its DevTools pipe."""

    def __init__(self, exe, profile):
        to_r, self.to_w = high_pipe()
        self.from_r, from_w = high_pipe()

        def fds():
            # The child's fds 3 and 4 must be these pipe ends exactly; the
            # ends are above 10, so neither dup2 closes the other. Every
            # other fd of this process is close-on-exec (PEP 446).
            os.dup2(to_r, 3)
            os.dup2(from_w, 4)
        self.proc = subprocess.Popen(
            [exe, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe",
             "--enable-logging=stderr", "--v=0", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            preexec_fn=fds, close_fds=False)
        os.close(to_r)
        os.close(from_w)
        self.buf, self.next_id, self.events = b"", 0, []

    def send(self, method, session=None, **params):
        """Sends one command; returns its id."""
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self.to_w, json.dumps(msg).encode() + b"\0")
        return self.next_id

    def read(self, deadline):
        """The next message, or BrowserError at the deadline."""
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                raise BrowserError("the browser " + ("exited" if self.proc.poll() is not None
                                                     else f"gave no answer in {TIMEOUT:.0f} s"))
            ready, _, _ = select.select([self.from_r], [], [], left)
            if ready:
                chunk = os.read(self.from_r, 1 << 16)
                if not chunk:
                    raise BrowserError("the browser closed its DevTools pipe")
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, session=None, **params):
        """Sends a command and returns its result; events met meanwhile are kept."""
        want = self.send(method, session, **params)
        deadline = time.monotonic() + TIMEOUT
        while True:
            msg = self.read(deadline)
            if msg.get("id") == want:
                if "error" in msg:
                    raise BrowserError(f"{method}: {msg['error'].get('message')}")
                return msg.get("result", {})
            self.events.append(msg)

    def wait_event(self, name):
        """Waits for an event (it may have come already)."""
        deadline = time.monotonic() + TIMEOUT
        while not any(m.get("method") == name for m in self.events):
            self.events.append(self.read(deadline))

    def close(self):
        try:
            self.send("Browser.close")
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        finally:
            for fd in (self.to_w, self.from_r):
                os.close(fd)
            self.proc.stderr.close()


def console_errors(events):
    """Every error the page's console showed, as text."""
    out = []
    for m in events:
        p = m.get("params", {})
        if m.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            args = [str(a.get("value", a.get("description"))) for a in p.get("args", [])]
            out.append(f"console.{p['type']}: " + " ".join(args))
        elif m.get("method") == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            out.append("exception: " + d.get("text", "") + " " +
                       str(d.get("exception", {}).get("description", "")))
        elif m.get("method") == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            e = p["entry"]
            out.append(f"{e.get('source')}: {e.get('text')} {e.get('url', '')}".strip())
    return out


def load(url, exe=None):
    """{"title", "headings", "images", "text", "errors"} of url as the
    browser loaded it."""
    exe = exe or find_chromium()
    with tempfile.TemporaryDirectory(prefix="page-profile-") as profile:
        pipe = Pipe(exe, profile)
        try:
            target = pipe.call("Target.createTarget", url="about:blank")["targetId"]
            session = pipe.call("Target.attachToTarget", targetId=target,
                                flatten=True)["sessionId"]
            for domain in ("Page", "Runtime", "Log"):
                pipe.call(f"{domain}.enable", session)
            pipe.call("Page.navigate", session, url=url)
            pipe.wait_event("Page.loadEventFired")
            got = pipe.call("Runtime.evaluate", session, expression=PROBE,
                            returnByValue=True)["result"]["value"]
            seen = json.loads(got)
            seen["errors"] = console_errors(pipe.events)
            return seen
        finally:
            pipe.close()


def screenshot(url, png, width=1100, height=2400, exe=None):
    """The page as the browser draws it, at width x height, into png
    (chromium --screenshot); returns png, or BrowserError."""
    exe = exe or find_chromium()
    with tempfile.TemporaryDirectory(prefix="page-profile-") as profile:
        proc = subprocess.run(
            [exe, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
             f"--screenshot={os.path.abspath(png)}", url],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=TIMEOUT, check=False)
    if proc.returncode != 0 or not os.path.isfile(png):
        raise BrowserError(f"chromium --screenshot exited {proc.returncode}: "
                           + proc.stderr.decode("utf-8", "replace")[-300:])
    return png
