#!/usr/bin/python3
"""One `tvguide serve` under mixed traffic for MINUTES, as a home server lives: guests browsing, hostile requests
(the raw HTTP fuzzer's), sign-in bursts from several client addresses (127.0.0.2 to 127.0.0.9, real peers on
loopback) while the owner signs in from 127.0.0.10, imports and refreshes from a misbehaving loopback feed server
(cut, slow, 500, 429, not XML, absurd numbers, and whole), watchers of the refresh progress stream, and viewers
with webhook channels who ask for reminders and send tests: one viewer's receiver answers at once, the other's
answers its head and then trickles its body past the send's deadline (the server is told allowed-hosts = loopback, as
an admin with receivers on this machine would), and strangers (strangers.py): four guests posting 50 MB bodies
every 30 s, three viewers' bomb zips every minute, and Home Assistant's broker (mosquitto) restarted every 3 minutes.

It asserts that every traffic thread lives to the end, the process stays up, its memory stays flat (the last third
of the run within 10% of the first third, after the first minute; RSS printed by the minute), no answer is a 5xx (but
the designed busy 503 with Retry-After), the owner always gets in, the fast viewer's reminders arrive while the slow
one's receiver trickles, and the guide is complete at the end (a last refresh from the feed, whole again, imports
every programme); that the guests' uploads keep serve under 150 MB, the zips raise it by less than their limits, and
tvguide is back on the broker, answering commands, within 60 s of each restart. Run by scripts/soak.

    /usr/bin/python3 Tests/Soak/soak.py [MINUTES]
"""
import gzip
import http.server
import json
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "Browser"))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "Fuzz"))
from tvguide_server import ROOT, Server, free_port  # noqa: E402
from http_fuzz import Fuzzer, REPLAY  # noqa: E402
from strangers import Broker, Strangers  # noqa: E402

SAMPLE = os.path.join(ROOT, "Sources", "GuideServer", "Resources", "sample-listings.xml.gz")


class Feed:
    """A loopback feed server that misbehaves in turn: whole, slow, cut off, 500, 429, not XML, absurd numbers."""

    MODES = ["whole", "slow", "cut", "500", "429", "garbage", "absurd"]

    def __init__(self):
        self.body = open(SAMPLE, "rb").read()
        self.xml = gzip.decompress(self.body)
        self.absurd = self.xml.replace(b"<title", b'<length units="hours">9223372036854775807</length><title', 200)
        self.turn = 0
        self.always_whole = False
        feed = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                mode = "whole" if feed.always_whole else feed.MODES[feed.turn % len(feed.MODES)]
                feed.turn += 1
                try:
                    if mode in ("500", "429"):
                        self.send_response(int(mode))
                        if mode == "429":
                            self.send_header("Retry-After", "99999999999999999999")
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                    body = {"garbage": os.urandom(200_000), "absurd": gzip.compress(feed.absurd)}.get(mode, feed.body)
                    self.send_response(200)
                    self.send_header("Content-Type", "application/gzip")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    if mode == "cut":
                        self.wfile.write(body[: len(body) // 2])
                        self.wfile.flush()
                        self.connection.shutdown(socket.SHUT_RDWR)
                    elif mode == "slow":
                        for start in range(0, len(body), 65536):
                            self.wfile.write(body[start:start + 65536])
                            time.sleep(0.2)
                    else:
                        self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError, OSError):
                    pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self):
        return "http://127.0.0.1:%d/guide.xml.gz" % self.port


class Receivers:
    """Where the viewers' reminders go, on loopback: /fast answers at once; /slow answers its head at once, then one
    byte of its body every 5 s for 40 s (a receiver holding a sender up past its 20 s deadline)."""

    def __init__(self):
        self.received = {"fast": 0, "slow": 0}
        receivers = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                kind = "slow" if self.path.startswith("/slow") else "fast"
                receivers.received[kind] += 1
                self.send_response(200)
                self.send_header("Content-Length", "4096" if kind == "slow" else "0")
                self.end_headers()
                try:
                    for _ in range(8 if kind == "slow" else 0):
                        time.sleep(5)
                        self.wfile.write(b" ")
                        self.wfile.flush()
                except OSError:
                    pass  # the sender gave up, as it should

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.server.server_address[1], path)


class Soak:
    def __init__(self, minutes):
        self.minutes = minutes
        self.lock = threading.Lock()
        self.statuses = {}
        self.failures = []
        self.owner_ok = 0
        self.owner_tries = 0
        self.rss = []
        self.tests = {}
        self.stop = threading.Event()
        self.feed = Feed()
        self.replay_port = free_port()
        self.replay = subprocess.Popen([REPLAY, str(self.replay_port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.receivers = Receivers()
        # Home Assistant's broker (mosquitto), restarted every few minutes by the strangers' traffic.
        self.broker = Broker() if Broker.installed() else None
        home_assistant = ["--home-assistant", "mqtt://127.0.0.1:%d" % self.broker.port, "--home-assistant-profile", "Ada"] if self.broker else []
        self.server = Server(["--tvmaze-url", "http://127.0.0.1:%d" % self.replay_port, "--allowed-hosts", "loopback"] + home_assistant)
        self.fuzzer = Fuzzer(self.server, 7)  # sets up the admin Ada
        self.token = self.make_token()
        # The watchers' own session: the hostile requests carry the fuzzer's, and may sign it out.
        self.watcher_session = self.sign_in("Ada", "correct horse")
        # The owner: a viewer who signs in from 127.0.0.10 throughout.
        self.form("/admin/profiles", {"name": "Owner", "role": "viewer", "kind": "pin", "secret": "2468"})
        self.form("/admin/sources", {"name": "feed", "format": "xmltv", "location": self.feed.url(), "priority": "10", "interval": "0.0834"})
        # Two viewers with a webhook each: one receiver fast, one trickling.
        self.viewers = {}
        for name, path in [("Fast", "/fast"), ("Slow", "/slow")]:
            self.form("/admin/profiles", {"name": name, "role": "viewer", "kind": "pin", "secret": "1357"})
            session = self.sign_in(name, "1357")
            _, _, page = self.fuzzer.page("/search", "tvguide_session=" + session)
            viewer = {"session": session, "csrf": self.fuzzer.form_token(page)}
            self.viewer_form(viewer, "/reminders/channels", {"kind": "webhook", "name": name, "target": self.receivers.url(path)})
            _, _, page = self.fuzzer.page("/reminders", "tvguide_session=" + session)
            viewer["channel"] = re.search(r"/reminders/channels/(\d+)/test", page).group(1)
            self.viewers[name] = viewer

    # Plumbing.

    def send(self, method, path, headers=(), body=b"", source="127.0.0.1", timeout=30, read_body=False):
        """One request from `source`; (status or None, head, body)."""
        lines = ["%s %s HTTP/1.1" % (method, path), "Host: 127.0.0.1", "Connection: close"] + ["%s: %s" % h for h in headers]
        if body or method == "POST":
            lines.append("Content-Length: %d" % len(body))
        raw = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
        data = b""
        try:
            with socket.socket() as connection:
                connection.settimeout(timeout)
                connection.bind((source, 0))
                connection.connect(("127.0.0.1", self.server.port))
                connection.sendall(raw)
                while True:
                    chunk = connection.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                    if not read_body and b"\r\n\r\n" in data:
                        break
        except OSError:
            pass
        match = re.match(rb"HTTP/1\.[01] (\d{3})", data)
        head, _, rest = data.partition(b"\r\n\r\n")
        status = int(match.group(1)) if match else None
        self.count(status, head.decode("latin-1"), "%s %s" % (method, path[:100]))
        return status, head.decode("latin-1"), rest

    def count(self, status, head, what):
        with self.lock:
            key = str(status)
            self.statuses[key] = self.statuses.get(key, 0) + 1
            if status is not None and status >= 500 and not (status == 503 and "retry-after" in head.lower()):
                self.failures.append("%d for %s" % (status, what))

    def admin_headers(self):
        return [("Cookie", "tvguide_session=%s" % self.fuzzer.session),
                ("Content-Type", "application/x-www-form-urlencoded")]

    def form(self, path, fields):
        fields = dict(fields, csrf=self.fuzzer.csrf)
        return self.send("POST", path, self.admin_headers(), urllib.parse.urlencode(fields).encode(), read_body=True)

    def sign_in(self, name, secret):
        nonce, token = self.fuzzer.guest_form()
        body = urllib.parse.urlencode({"csrf": token, "name": name, "secret": secret}).encode()
        _, head, _ = self.send("POST", "/signin", [("Cookie", "tvguide_csrf=" + nonce), ("Content-Type", "application/x-www-form-urlencoded")], body)
        return re.search(r"tvguide_session=([^;]+)", head).group(1)

    def viewer_form(self, viewer, path, fields):
        body = urllib.parse.urlencode(dict(fields, csrf=viewer["csrf"])).encode()
        return self.send("POST", path, [("Cookie", "tvguide_session=" + viewer["session"]),
                                        ("Content-Type", "application/x-www-form-urlencoded")], body)

    def make_token(self):
        _, _, body = self.form("/admin/tokens", {"name": "soak", "scope": "admin"})
        return re.search(rb'<code id="new-token">(tvg_[0-9a-f]+)</code>', body).group(1).decode()

    def api(self, method, path, payload=None):
        body = json.dumps(payload).encode() if payload is not None else b""
        status, _, data = self.send(method, path, [("Authorization", "Bearer " + self.token), ("Content-Type", "application/json")],
                                    body, read_body=True, timeout=120)
        return status, data

    # The traffic.

    def guests(self):
        paths = ["/", "/now", "/search?q=news", "/search?q=doctor+who&in=all", "/channels", "/grid/rows?day=2026-02-15&from=0&count=40",
                 "/api/now", "/api/guide?from=2026-02-15T20:00:00Z&to=2026-02-15T23:00:00Z", "/api/channels", "/api/coverage",
                 "/xmltv.xml.gz", "/shows?q=under+the+dome", "/shows/1", "/openapi.json", "/?day=2026-02-16&zoom=2"]
        while not self.stop.is_set():
            self.send("GET", random.choice(paths), [("Accept-Encoding", "gzip")], read_body=True)

    def hostile(self):
        while not self.stop.is_set():
            raw, _ = self.fuzzer.one()
            try:
                status, head = self.fuzzer.exchange(raw)
            except OSError:
                status, head = None, ""
            self.count(status, head, raw.split(b"\r\n")[0][:100].decode("latin-1"))

    def sign_in_bursts(self):
        while not self.stop.wait(15):
            threads = []
            nonce, token = self.fuzzer.guest_form()
            for host in range(2, 10):
                for guess in range(6):
                    body = urllib.parse.urlencode({"csrf": token, "name": random.choice(["Owner", "Ada", "nobody"]),
                                                   "secret": "%04d" % random.randrange(10000)}).encode()
                    threads.append(threading.Thread(target=self.send, args=(
                        "POST", "/signin", [("Cookie", "tvguide_csrf=" + nonce), ("Content-Type", "application/x-www-form-urlencoded")],
                        body, "127.0.0.%d" % host)))
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            # The owner, from their own address, during and after each burst.
            body = urllib.parse.urlencode({"csrf": token, "name": "Owner", "secret": "2468"}).encode()
            for _ in range(10):
                status, _, _ = self.send("POST", "/signin", [("Cookie", "tvguide_csrf=" + nonce), ("Content-Type", "application/x-www-form-urlencoded")],
                                         body, source="127.0.0.10")
                if status != 429:
                    break
                time.sleep(2)  # the bcrypt queue was full: a busy answer, not a lockout
            with self.lock:
                self.owner_tries += 1
                self.owner_ok += status == 303

    def refreshes_and_imports(self):
        while not self.stop.wait(20):
            self.api("POST", "/api/refresh", {"sources": ["feed"]})
            if random.random() < 0.5:
                self.api("POST", "/api/imports", {"location": self.feed.url()})

    def watchers(self):
        while not self.stop.is_set():
            # A stream lasts a minute; the page reconnects, as this does.
            status, _, _ = self.send("GET", "/admin/refresh/events", [("Cookie", "tvguide_session=" + self.watcher_session)],
                                     read_body=True, timeout=90)
            with self.lock:
                self.streams = getattr(self, "streams", 0) + (status == 200)
            if status != 200:
                self.stop.wait(5)

    def viewers_remind(self):
        """Every 20 s each viewer asks to be reminded of a programme starting within the hour (an hour's lead: due at
        once) and sends its channel a test (3 a minute at most: 429 beyond)."""
        while not self.stop.wait(20):
            _, data = self.api("GET", "/api/now")
            upcoming = [entry["next"]["id"] for entry in json.loads(data or b"[]") if entry.get("next")]
            for viewer in self.viewers.values():
                if upcoming:
                    self.viewer_form(viewer, "/reminders", {"programme": str(random.choice(upcoming)), "lead": "60"})
                status, _, _ = self.viewer_form(viewer, "/reminders/channels/%s/test" % viewer["channel"], {})
                with self.lock:
                    self.tests[str(status)] = self.tests.get(str(status), 0) + 1

    def memory(self):
        while not self.stop.wait(5):
            try:
                with open("/proc/%d/status" % self.server.process.pid) as status:
                    kilobytes = int(re.search(r"VmRSS:\s+(\d+)", status.read()).group(1))
                self.rss.append((time.time(), kilobytes / 1024))
            except (OSError, AttributeError):
                self.failures.append("the server process is gone")
                return

    def run(self):
        began = time.time()
        self.strangers = Strangers(self, self.broker)
        workers = [self.guests, self.guests, self.hostile, self.sign_in_bursts, self.refreshes_and_imports, self.watchers,
                   self.watchers, self.viewers_remind, self.memory] + self.strangers.workers()
        threads = [threading.Thread(target=self.living, args=(worker,), daemon=True) for worker in workers]
        for thread in threads:
            thread.start()
        while time.time() - began < self.minutes * 60 and self.server.process.poll() is None:
            time.sleep(5)
        self.stop.set()
        for thread in threads:
            thread.join(timeout=120)
            if thread.is_alive():
                self.failures.append("a traffic thread did not stop within 120 s")
        alive = self.server.process.poll() is None
        # The guide complete at the end: the feed whole again, one more refresh imports every programme.
        self.feed.always_whole = True
        status, data = self.api("POST", "/api/refresh", {"sources": ["feed"]})
        deadline = time.time() + 300
        source = {}
        while time.time() < deadline:
            time.sleep(3)
            _, data = self.api("GET", "/api/sources")
            sources = json.loads(data or b"[]")
            source = next((s for s in sources if s.get("definition", {}).get("name") == "feed"), {})
            _, progress = self.api("GET", "/api/refresh")
            if source.get("lastOutcome") == "imported" and b'"running":false' in progress:
                break
        expected = self.feed.xml.count(b"<programme ")
        complete = source.get("lastOutcome") == "imported" and source.get("lastProgrammes", 0) >= expected * 0.9
        took = time.time() - began
        warm = [mb for at, mb in self.rss if at - began >= 60] or [mb for _, mb in self.rss]
        start, peak, end = (warm[0], max(mb for _, mb in self.rss), warm[-1]) if warm else (0, 0, 0)
        third = max(1, len(warm) // 3)
        first_third, last_third = (sum(warm[:third]) / third, sum(warm[-third:]) / third) if warm else (0, 0)
        by_minute = ["%d:%.0f" % ((at - began) // 60, mb) for index, (at, mb) in enumerate(self.rss) if index % 12 == 0]
        total = sum(self.statuses.values())
        print("soak: %.1f minutes, %d requests (%s)" % (took / 60, total, ", ".join("%s: %d" % item for item in sorted(self.statuses.items()))))
        print("soak: RSS after the first minute %.0f MB, peak %.0f MB, end %.0f MB; mean of the first third %.0f MB, of the last third %.0f MB"
              % (start, peak, end, first_third, last_third))
        print("soak: RSS by minute (minute:MB) " + " ".join(by_minute))
        print("soak: reminders and tests delivered to the fast receiver %d, begun at the trickling one %d; tests answered %s"
              % (self.receivers.received["fast"], self.receivers.received["slow"], self.tests))
        print("soak: the owner signed in %d of %d times during sign-in bursts from 8 other addresses" % (self.owner_ok, self.owner_tries))
        print("soak: %d progress streams watched to their end" % getattr(self, "streams", 0))
        for line in self.strangers.report():
            print(line)
        print("soak: last refresh %s with %s programmes (the feed has %d); server %s; %d answers >= 500"
              % (source.get("lastOutcome"), source.get("lastProgrammes"), expected, "up" if alive else "DOWN", len(self.failures)))
        problems = list(self.failures[:20]) + self.strangers.problems()
        if not alive:
            problems.append("the server stopped")
        if last_third > first_third * 1.10:
            problems.append("memory grew: the last third's mean %.0f MB is over 110%% of the first third's %.0f MB" % (last_third, first_third))
        if self.minutes >= 2 and not (self.receivers.received["fast"] > 0 and self.receivers.received["slow"] > 0):
            problems.append("the viewers' receivers got nothing: %s" % self.receivers.received)
        if self.owner_ok < self.owner_tries:
            problems.append("the owner was kept out %d times" % (self.owner_tries - self.owner_ok))
        if not complete:
            problems.append("the guide is not complete at the end: %s" % json.dumps(source)[:500])
        for problem in problems:
            print("soak: FAILED: " + problem)
        if problems:
            print("soak: the server's log ends: " + self.server.text()[-3000:])
        return 1 if problems else 0

    def living(self, worker):
        """Runs one traffic thread; if it dies, the soak fails saying how."""
        try:
            worker()
        except Exception:
            import traceback
            with self.lock:
                self.failures.append("the %s thread died: %s" % (worker.__name__, traceback.format_exc()[-800:]))

    def close(self):
        self.receivers.server.shutdown()
        self.server.stop()
        self.replay.terminate()
        self.feed.server.shutdown()
        if self.broker:
            self.broker.close()


def main():
    minutes = float(sys.argv[1]) if len(sys.argv) > 1 else 5
    soak = Soak(minutes)
    try:
        return soak.run()
    finally:
        soak.close()


if __name__ == "__main__":
    sys.exit(main())
