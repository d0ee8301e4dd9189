"""`tvguide serve` for the tests that drive it from outside: the browser tests, the HTTP fuzzers and the soak.

Imported by Tests/Browser/*.py and Tests/Fuzz/*.py; needs nothing beyond Python's standard library.
"""
import atexit
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The programs under test: the debug build's, or those in TVGUIDE_PRODUCTS (scripts/test names the release build the
# package is made from, the program users install); TVGUIDE_BINARY names tvguide alone.
PRODUCTS = os.environ.get("TVGUIDE_PRODUCTS", os.path.join(ROOT, ".build", "debug"))
BINARY = os.environ.get("TVGUIDE_BINARY", os.path.join(PRODUCTS, "tvguide"))


def helper(name):
    """A stand-in the tests start (tvmaze-replay, sd-replay, recorder-replay), from the same build as tvguide;
    NAME_BINARY (upper case, '-' as '_') overrides it."""
    variable = name.upper().replace("-", "_") + "_BINARY"
    return os.environ.get(variable, os.path.join(PRODUCTS, name))


NOW = "2026-02-15T20:30:00Z"


def fresh_database(folder):
    """A fresh database: a file in `folder`, or, when TVGUIDE_TEST_POSTGRES names a PostgreSQL database (scripts/test's
    second run), a schema of its own in it."""
    postgres = os.environ.get("TVGUIDE_TEST_POSTGRES")
    if not postgres:
        return os.path.join(folder, "guide.sqlite")
    return postgres + ("&" if "?" in postgres else "?") + "schema=b_" + uuid.uuid4().hex


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """`tvguide serve` on a free port with a fresh database, its clock at `now` (None: the machine's): the file `listings` imported first,
    else the bundled sample listings (which serve imports into an empty guide); `extra` adds serve options; `before`
    lists more tvguide commands (argument lists) to run on the database first; `launcher` is put before the program
    (a wrapper that restricts it)."""

    def __init__(self, extra=(), listings=None, now=NOW, before=(), launcher=()):
        self.folder = tempfile.mkdtemp(prefix="tvguide-serve-")
        self.port = free_port()
        self.database = fresh_database(self.folder)
        # Appending (O_APPEND): the child writes at the end whatever this process's reads do to the offset they share
        # (opened "w+", a read's seek(0) made serve's next line overwrite the start: a setup code lost, a flaky start).
        self.log = open(os.path.join(self.folder, "serve.log"), "a+")
        # Its own files for a PostgreSQL database (exports, logos, grabbers' homes) go to the data folder: the test's,
        # removed with it, not the user's ~/.local/share.
        self.environment = environment = dict(os.environ, TZ="UTC", XDG_DATA_HOME=os.path.join(self.folder, "data"))
        # The server's clock: `now` when it started, moving on since.
        self.now, self.started = now, time.time()
        if listings:
            subprocess.run([BINARY, "import", "--database", self.database, listings], check=True, capture_output=True, env=environment)
        for command in before:
            subprocess.run([BINARY] + list(command) + ["--database", self.database], check=True, capture_output=True, env=environment)
        self.process = subprocess.Popen(
            list(launcher) + [BINARY, "serve", "--database", self.database, "--port", str(self.port)]
            + (["--pretend-now", now] if now else []) + list(extra),
            stdout=self.log, stderr=subprocess.STDOUT, env=environment)
        # A test class whose setUpClass failed never calls stop: the server (and what a subclass's stop ends) would
        # outlive the suite, and scripts/test may run the suite again.
        atexit.register(lambda: self.process.poll() is None and self.stop())
        deadline = time.time() + 120
        while time.time() < deadline:
            text = self.text()
            if "Server started" in text:
                self.setup_code = re.search(r"setup code (\S+)", text).group(1)
                return
            if self.process.poll() is not None:
                raise RuntimeError("tvguide serve exited:\n" + text)
            time.sleep(0.2)
        raise RuntimeError("tvguide serve did not start:\n" + self.text())

    def text(self):
        self.log.seek(0)
        return self.log.read()

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.port, path)

    def stop(self):
        """Stops it as a service manager does: SIGTERM, then, past the grace a slow request may hold it (its body has
        30 s: ConnectionLimits), SIGKILL."""
        self.process.terminate()
        try:
            self.process.wait(timeout=45)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=20)
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)
