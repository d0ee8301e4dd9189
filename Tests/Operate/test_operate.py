"""tvguide as operators run it: stopped by SIGTERM in the middle of an import, and watched by a real Prometheus.

- Graceful shutdown: serve stops accepting at once, lets the import it is running finish (the feed is held half-sent
  until after the signal), closes the store and exits 0; the source's listings are all there afterwards.
- Prometheus (Debian's prometheus, started here on loopback with a scrape configuration pointing at serve): the
  target is up, and its query API returns the request, refresh, listings and store series after a request, a refresh
  and an import.

Run by scripts/test on each store (TVGUIDE_TEST_POSTGRES for PostgreSQL); needs only Python's standard library.
"""
import http.server
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Browser"))
from tvguide_server import BINARY, ROOT, Server, free_port  # noqa: E402

PROGRAMMES = 2000


def listings(channel, start, count):
    """XMLTV for `channel`: `count` half-hour programmes from `start` (Unix seconds)."""
    stamp = lambda seconds: time.strftime("%Y%m%d%H%M%S +0000", time.gmtime(seconds))
    rows = ['<?xml version="1.0" encoding="UTF-8"?>\n<tv>\n<channel id="%s"><display-name>%s</display-name></channel>\n' % (channel, channel)]
    for index in range(count):
        begin = start + index * 1800
        rows.append('<programme start="%s" stop="%s" channel="%s"><title>%s %d</title><desc>%s</desc></programme>\n'
                    % (stamp(begin), stamp(begin + 1800), channel, channel, index, "A programme. " * 20))
    rows.append("</tv>\n")
    return "".join(rows).encode()


class Feed:
    """An XMLTV feed on loopback; when `held`, the first half of the body is sent and the rest only after release()."""

    def __init__(self, body, held=False):
        self.body = body
        self.requested = threading.Event()
        self.released = threading.Event()
        if not held:
            self.released.set()
        feed = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "application/xml")
                self.send_header("Content-Length", str(len(feed.body)))
                self.end_headers()
                half = len(feed.body) // 2
                self.wfile.write(feed.body[:half])
                self.wfile.flush()
                feed.requested.set()
                feed.released.wait(120)
                self.wfile.write(feed.body[half:])

            def log_message(self, *arguments):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/guide.xml" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def release(self):
        self.released.set()

    def close(self):
        self.released.set()
        self.server.shutdown()


def now_iso():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def cli(server, *arguments):
    result = subprocess.run([BINARY] + list(arguments) + ["--database", server.database], capture_output=True, text=True,
                            env=server.environment, timeout=120)
    if result.returncode != 0:
        raise AssertionError("tvguide %s failed: %s" % (" ".join(arguments), result.stderr))
    return result.stdout


def accepts(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return True
    except OSError:
        return False


class GracefulShutdownTests(unittest.TestCase):
    def test_sigterm_finishes_the_running_import_then_exits(self):
        feed = Feed(listings("slow.tv", int(time.time()) - 3600, PROGRAMMES), held=True)
        folder = tempfile.mkdtemp(prefix="tvguide-operate-")
        small = os.path.join(folder, "small.xml")
        with open(small, "wb") as out:
            out.write(listings("first.tv", int(time.time()) - 3600, 3000))
        server = Server(listings=small, now=now_iso(), before=[["sources", "add", "slow", feed.url]])
        try:
            self.assertTrue(feed.requested.wait(90), "serve's scheduler never asked for the due source:\n" + server.text())
            # A request in flight: the whole guide as XMLTV (megabytes), read a little before the signal, through a
            # small receive window so serve is still writing it when the signal comes.
            reader = socket.socket()
            reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            reader.connect(("127.0.0.1", server.port))
            reader.sendall(b"GET /xmltv.xml HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            received = reader.recv(1024)
            server.process.send_signal(signal.SIGTERM)
            # It stops accepting at once, while the import waits for the rest of the feed.
            deadline = time.time() + 20
            while accepts(server.port) and time.time() < deadline:
                time.sleep(0.2)
            self.assertFalse(accepts(server.port), "serve still accepts connections after SIGTERM")
            self.assertIsNone(server.process.poll(), "serve exited before the import it was running finished")
            # The request that was running is answered to its end.
            reader.settimeout(30)
            while True:
                chunk = reader.recv(65536)
                if not chunk:
                    break
                received += chunk
            reader.close()
            self.assertTrue(received.startswith(b"HTTP/1.1 200"), received[:200])
            self.assertTrue(received.rstrip().endswith(b"</tv>"), received[-200:])
            self.assertEqual(received.count(b"<programme "), 3000)
            feed.release()
            self.assertEqual(server.process.wait(timeout=60), 0, server.text())
        finally:
            feed.close()
            if server.process.poll() is None:
                server.process.kill()
        sources = json.loads(cli(server, "sources", "list", "--json"))
        slow = [source for source in sources if source["definition"]["name"] == "slow"]
        self.assertEqual(slow[0]["lastOutcome"], "imported", slow)
        self.assertEqual(slow[0]["programmes"], PROGRAMMES)
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *arguments):
        return None


class SandboxTests(unittest.TestCase):
    """serve as the systemd unit confines it, where this machine can show it without systemd as PID 1:
    MemoryDenyWriteExecute=yes, enforced by the kernel's PR_SET_MDWE (Tests/Operate/deny_write_execute.py)."""

    def test_serve_runs_with_no_writable_executable_memory(self):
        wrapper = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "deny_write_execute.py")]
        probe = subprocess.run(wrapper + [sys.executable, "-c", "pass"], capture_output=True)
        if probe.returncode == 3:
            self.skipTest("this kernel has no PR_SET_MDWE (Linux 6.3 or later)")
        server = Server(listings=None, now=now_iso(), launcher=wrapper)
        try:
            for path in ["/", "/now", "/search?q=news", "/api/now", "/xmltv.xml.gz", "/signin", "/setup"]:
                with urllib.request.urlopen(server.url(path), timeout=60) as answer:
                    self.assertEqual(answer.status, 200, path)
            # The first admin made: bcrypt on its own thread, a transaction, a session.
            page = urllib.request.urlopen(server.url("/setup"), timeout=60)
            nonce = page.headers["Set-Cookie"].split(";")[0]
            token = re.search(r'name="csrf" value="([0-9a-f]+)"', page.read().decode()).group(1)
            form = urllib.parse.urlencode({"csrf": token, "code": server.setup_code, "name": "Ada", "kind": "pin", "secret": "2468"}).encode()
            request = urllib.request.Request(server.url("/setup"), data=form, headers={"Cookie": nonce})
            opener = urllib.request.build_opener(NoRedirects)
            with self.assertRaises(urllib.error.HTTPError) as made:
                opener.open(request, timeout=60)
            self.assertEqual(made.exception.code, 303)
            self.assertIn("tvguide_session=", made.exception.headers["Set-Cookie"])
        finally:
            server.process.send_signal(signal.SIGTERM)
            self.assertEqual(server.process.wait(timeout=120), 0, server.text()[-2000:])
            server.stop()


class Prometheus:
    """Debian's prometheus on loopback, scraping `target` (host:port) every second."""

    def __init__(self, target):
        self.folder = tempfile.mkdtemp(prefix="tvguide-prometheus-")
        self.port = free_port()
        configuration = os.path.join(self.folder, "prometheus.yml")
        with open(configuration, "w") as out:
            out.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                      "scrape_configs:\n  - job_name: tvguide\n    static_configs:\n      - targets: ['%s']\n" % target)
        self.log = open(os.path.join(self.folder, "prometheus.log"), "a+")  # appended: see tvguide_server.py
        self.process = subprocess.Popen(
            ["prometheus", "--config.file=" + configuration, "--storage.tsdb.path=" + os.path.join(self.folder, "data"),
             "--web.listen-address=127.0.0.1:%d" % self.port], stdout=self.log, stderr=subprocess.STDOUT)

    def query(self, expression):
        """The instant vector `expression` selects: [(labels, value)], [] while the API is not up yet."""
        url = "http://127.0.0.1:%d/api/v1/query?%s" % (self.port, urllib.parse.urlencode({"query": expression}))
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                result = json.load(answer)["data"]["result"]
        except OSError:
            return []
        return [(series["metric"], float(series["value"][1])) for series in result]

    def eventually(self, expression, check=lambda value: True, seconds=60):
        """The first value of `expression` that passes `check`, polling for `seconds`."""
        deadline = time.time() + seconds
        while time.time() < deadline:
            for _, value in self.query(expression):
                if check(value):
                    return value
            time.sleep(0.5)
        self.log.seek(0)
        raise AssertionError("Prometheus never had %s passing its check; its log:\n%s" % (expression, self.log.read()[-3000:]))

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


class PrometheusTests(unittest.TestCase):
    def test_a_real_prometheus_scrapes_serve(self):
        if not shutil.which("prometheus"):
            self.skipTest("prometheus is not installed (scripts/test installs it as root)")
        start = int(time.time()) - 3600
        feed = Feed(listings("fast.tv", start, 48))
        folder = tempfile.mkdtemp(prefix="tvguide-operate-")
        small = os.path.join(folder, "small.xml")
        more = os.path.join(folder, "more.xml")
        with open(small, "wb") as out:
            out.write(listings("first.tv", start, 10))
        with open(more, "wb") as out:
            out.write(listings("more.tv", start, 100))
        server = Server(extra=["--metrics", "loopback"], listings=small, now=now_iso(), before=[["sources", "add", "fast", feed.url]])
        prometheus = Prometheus("127.0.0.1:%d" % server.port)
        try:
            prometheus.eventually('up{job="tvguide"}', lambda value: value == 1)
            # A request, by its route pattern and status.
            urllib.request.urlopen(server.url("/now"), timeout=10).read()
            prometheus.eventually('hb_requests{job="tvguide",http_route="/now",http_response_status_code="200"}', lambda value: value >= 1)
            prometheus.eventually('http_server_request_duration_count{job="tvguide",http_route="/now"}', lambda value: value >= 1)
            # The scheduler's refresh of the due source, its outcome and duration, and what it left in the guide.
            prometheus.eventually('tvguide_refreshes_total{job="tvguide",source="fast",outcome="imported"}', lambda value: value == 1)
            prometheus.eventually('tvguide_refresh_duration_seconds_count{job="tvguide",source="fast"}', lambda value: value == 1)
            prometheus.eventually('tvguide_source_programmes{job="tvguide",source="fast"}', lambda value: value == 48)
            end = start + 48 * 1800
            prometheus.eventually('tvguide_source_listings_end_seconds{job="tvguide",source="fast"}', lambda value: value == end)
            prometheus.eventually('tvguide_store_connections_limit{job="tvguide"}', lambda value: value >= 1)
            prometheus.eventually('tvguide_store_connection_wait_seconds_count{job="tvguide"}', lambda value: value >= 1)
            # An import (by the CLI, into the same database): the programmes stored rise by its 100.
            before = prometheus.eventually('tvguide_programmes{job="tvguide"}', lambda value: value == 58)
            cli(server, "import", more)
            prometheus.eventually('tvguide_programmes{job="tvguide"}', lambda value: value == before + 100)
        finally:
            prometheus.stop()
            feed.close()
            server.stop()
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
