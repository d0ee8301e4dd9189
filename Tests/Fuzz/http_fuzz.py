#!/usr/bin/python3
"""A raw HTTP fuzzer for the running server's HTML routes: paths, query strings, headers, cookies and forms, sent over
plain sockets (so malformed requests too), as a guest, as a signed-in admin with a valid form token, and with junk
credentials. It runs against a real `tvguide serve` (TVmaze answered by tvmaze-replay) for SECONDS and fails when any
answer is a 5xx (a 503 with Retry-After, the designed "busy", excepted) or the server stops answering.

    /usr/bin/python3 Tests/Fuzz/http_fuzz.py [SECONDS] [SEED]

Findings are written to .build/http-fuzz/ (the request that got the answer) and the summary to standard output.
"""
import http.client
import os
import random
import re
import socket
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Browser"))
from tvguide_server import ROOT, Server, free_port, helper  # noqa: E402

REPLAY = helper("tvmaze-replay")
FINDINGS = os.path.join(ROOT, ".build", "http-fuzz")

NUMBERS = ["0", "-1", "1", "9223372036854775807", "9223372036854775808", "-9223372036854775809", "99999999999999999999",
           "1e308", "-1e308", "nan", "inf", "0x10", "+5", "٣", "4294967296", "2147483648", "65536", "1.5", ""]
STRINGS = ["", " ", "%", "%%", "%00", "%0d%0a", "\u00e9", "%E2%82%AC", "%ff%fe", "<script>", "'\"", "../../etc/passwd",
           "//evil.example", "/%09/evil.example", "a" * 300, "a" * 5000, "x,y,z", "2026-02-15", "99999999999999999-01-01",
           "2026-02-15T20:30:00Z", "9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+14:00", "Thu, 01 Jan 2026 99999999999999999:00:00 GMT",
           "bbc1.uk", "https://static.tvmaze.com/uploads/images/medium_portrait/0/1815.jpg", "https://static.tvmaze.com:9/a.jpg?x=1",
           "under the dome", " ".join("w%d" % n for n in range(30))]
ROUTES = ["/", "/now", "/search", "/channels", "/programmes/{n}", "/grid/rows", "/signin", "/setup", "/settings", "/admin",
          "/admin/sources", "/admin/source", "/admin/health", "/admin/refresh/events", "/shows", "/shows/{n}",
          "/shows/{n}/seasons/{n}", "/episodes/{n}", "/people", "/people/{n}", "/upcoming", "/calendar", "/calendar/{s}.ics",
          "/images", "/xmltv.xml", "/xmltv.xml.gz", "/static/{s}", "/api/channels", "/api/guide", "/api/now",
          "/api/programmes/{n}", "/api/search", "/api/coverage", "/api/lineup", "/api/sources", "/api/health", "/api/refresh",
          "/openapi.json", "/logo", "/xmltv/{s}.xml", "/xmltv/{s}.xml.gz", "/admin/channels", "/admin/feeds", "/favourites",
          "/theme", "/{s}", "/{s}/{s}"]
FORMS = {
    "/signin": ["name", "secret", "next"], "/setup": ["code", "name", "kind", "secret"], "/settings": ["dayStart", "zone"],
    "/settings/series": ["lead", "shift", "pastDays", "futureDays"], "/settings/calendar": ["action"],
    "/admin/profiles": ["name", "role", "kind", "secret"], "/admin/profiles/delete": ["id"], "/admin/tokens": ["name", "scope"],
    "/admin/tokens/revoke": ["id"], "/admin/import": ["location"],
    "/admin/sources": ["name", "format", "location", "priority", "interval", "channels", "refresh"],
    "/admin/source": ["name", "location", "format", "priority", "interval", "shift", "zone", "keepNew", "channels", "days"],
    "/admin/source/channels": ["name", "id", "keep", "map", "page", "accept", "acceptAll", "clear"], "/admin/source/remove": ["name"],
    "/admin/refresh": ["name"], "/channels": ["add", "remove", "up", "down", "q", "page"],
    "/shows/{n}/follow": ["next"], "/shows/{n}/unfollow": ["next"], "/shows/{n}/reminders": ["on", "next"], "/signout": [],
    "/favourites": ["channel", "favourite"], "/theme": ["theme"], "/admin/channels/logo": ["channel", "logo", "q"],
    "/admin/channels/groups": ["name", "channels"], "/admin/channels/groups/remove": ["name"], "/admin/channels/guests": ["group"],
    "/admin/channels/timeshift": ["base", "offset", "name", "number", "logo", "id"], "/admin/channels/timeshift/remove": ["id"],
    "/admin/feeds": ["name", "channels", "days", "shape"], "/admin/feeds/remove": ["id"],
    "/admin/feeds/reloads": ["feed", "kind", "address", "secret"], "/admin/feeds/reloads/tell": ["id"], "/admin/feeds/reloads/remove": ["id"],
}
QUERY_NAMES = ["day", "zoom", "page", "p", "at", "channel", "from", "count", "q", "in", "limit", "to", "channels", "view", "date",
               "premieres", "u", "name", "show", "next", "saved", "c", "v", "group", "genre", "edit"]
HEADERS = ["If-Modified-Since", "If-None-Match", "Accept-Encoding", "Range", "Content-Type", "X-Forwarded-For",
           "X-Forwarded-Proto", "Authorization", "Accept", "Referer", "User-Agent", "Origin", "Expect"]


class Fuzzer:
    def __init__(self, server, seed):
        self.server = server
        self.random = random.Random(seed)
        self.statuses = {}
        self.failures = []
        self.unanswered = 0
        self.sent = 0
        self.csrf, self.session = self.sign_in()

    # Plumbing.

    def exchange(self, raw, timeout=4):
        """Sends raw request bytes; the answer's status (None when the connection closed without one) and headers."""
        with socket.create_connection(("127.0.0.1", self.server.port), timeout=timeout) as connection:
            connection.sendall(raw)
            data = b""
            try:
                while b"\r\n\r\n" not in data and len(data) < 1 << 20:
                    chunk = connection.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            except (socket.timeout, ConnectionResetError):
                pass
        match = re.match(rb"HTTP/1\.[01] (\d{3})", data)
        return (int(match.group(1)) if match else None), data.split(b"\r\n\r\n")[0].decode("latin-1")

    def request(self, method, target, headers=(), body=b""):
        lines = ["%s %s HTTP/1.1" % (method, target), "Host: 127.0.0.1:%d" % self.server.port, "Connection: close"]
        lines += ["%s: %s" % header for header in headers]
        if body or method in ("POST", "PUT"):
            lines.append("Content-Length: %d" % len(body))
        return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8", "surrogatepass") + body

    def page(self, target, cookie=None):
        """A page as a browser gets it: the status, the headers and the body (for its forms' token)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=30)
        try:
            connection.request("GET", target, headers={"Cookie": cookie} if cookie else {})
            response = connection.getresponse()
            return response.status, response.getheaders(), response.read().decode("utf-8", "replace")
        finally:
            connection.close()

    @staticmethod
    def form_token(body):
        """The `csrf` field the page's forms carry back (bound to the browser's session, or its guest cookie)."""
        return re.search(r'name="csrf" value="([0-9a-f]+)"', body).group(1)

    def guest_form(self):
        """A guest browser's nonce cookie and the form token a page gave it with that cookie."""
        _, headers, body = self.page("/signin")
        return re.search(r"tvguide_csrf=([^;]+)", dict(headers)["Set-Cookie"]).group(1), self.form_token(body)

    def sign_in(self):
        """Sets up the admin (Ada, "correct horse") and returns the signed-in form token and the session cookie."""
        nonce, token = self.guest_form()
        form = urllib.parse.urlencode({"csrf": token, "code": self.server.setup_code, "name": "Ada",
                                       "kind": "password", "secret": "correct horse"}).encode()
        status, head = self.exchange(self.request("POST", "/setup", [("Cookie", "tvguide_csrf=" + nonce),
                                                                     ("Content-Type", "application/x-www-form-urlencoded")], form))
        session = re.search(r"tvguide_session=([^;]+)", head).group(1)
        _, _, body = self.page("/search", "tvguide_session=" + session)
        return self.form_token(body), session

    # What to send.

    def value(self):
        roll = self.random.random()
        if roll < 0.4:
            return self.random.choice(NUMBERS)
        if roll < 0.8:
            return self.random.choice(STRINGS)
        return "".join(chr(self.random.randrange(0, 0x2FF)) for _ in range(self.random.randrange(1, 40)))

    def encoded(self, text):
        return urllib.parse.quote(text, safe="") if self.random.random() < 0.8 else text.replace(" ", "+")

    def path(self):
        route = self.random.choice(ROUTES + list(FORMS))
        return re.sub(r"\{[ns]\}", lambda m: self.encoded(self.random.choice(NUMBERS) if m.group(0) == "{n}" else self.value()), route)

    def query(self):
        pairs = [(self.random.choice(QUERY_NAMES), self.value()) for _ in range(self.random.randrange(0, 5))]
        return "&".join("%s=%s" % (self.encoded(name), self.encoded(value)) for name, value in pairs)

    def cookies(self, signed_in):
        cookies = []
        if signed_in:
            cookies.append("tvguide_session=" + self.session)
        elif self.random.random() < 0.3:
            cookies += ["tvguide_session=" + self.value(), "tvguide_csrf=" + self.value()]
        if self.random.random() < 0.3:
            cookies.append("tz=" + self.encoded(self.random.choice(["Europe/London", "Etc/GMT+14", "../../etc", self.value()])))
        return cookies

    def one(self):
        signed_in = self.random.random() < 0.5
        path = self.path()
        # Mostly the method the route takes (a form is posted, a page is got), so handlers are reached; else any, for
        # the 405s and the methods nothing takes.
        usual = "POST" if path in FORMS else "GET"
        method = usual if self.random.random() < 0.7 else self.random.choice(
            ["GET", "POST", "PUT", "HEAD", "DELETE", "PATCH", "OPTIONS", "BREW"])
        query = self.query()
        target = path + ("?" + query if query else "")
        headers = []
        cookies = self.cookies(signed_in)
        if cookies:
            headers.append(("Cookie", "; ".join(cookies)))
        for name in self.random.sample(HEADERS, self.random.randrange(0, 4)):
            headers.append((name, self.random.choice(["Bearer " + self.value(), self.value(), "Thu, 01 Jan 2026 00:00:00 GMT",
                                                      "127.0.0.%d" % self.random.randrange(1, 255), "gzip, deflate"])))
        body = b""
        if method in ("POST", "PUT"):
            names = FORMS.get(path, []) or [self.random.choice(QUERY_NAMES)]
            fields = [(name, self.value()) for name in names if self.random.random() < 0.8]
            if signed_in and self.random.random() < 0.9:
                fields.append(("csrf", self.csrf))
            if self.random.random() < 0.15 and path.startswith("/api/"):
                body = self.random.choice([b'{"location": "/etc/passwd"}', b'{"channels": [1, null, {}]}', b"{" * 5000, b'{"sources": ["x"]}'])
                headers.append(("Content-Type", "application/json"))
            else:
                body = "&".join("%s=%s" % (self.encoded(n), self.encoded(v)) for n, v in fields).encode("utf-8", "surrogatepass")
                headers.append(("Content-Type", "application/x-www-form-urlencoded"))
        raw = self.request(method, target, headers, body)
        if self.random.random() < 0.05:
            # A malformed request: cut short, a byte flipped, or a wrong length. One cut short or promising more body
            # than it sends may rightly get no answer (the server waits for the rest, then drops it).
            spot = self.random.randrange(0, len(raw))
            raw = self.random.choice([raw[:spot], raw[:spot] + bytes([self.random.randrange(0, 256)]) + raw[spot + 1:],
                                      raw.replace(b"Content-Length: ", b"Content-Length: 9")])
            return raw, True
        return raw, False

    # The run.

    def check(self, raw, malformed, status, head):
        self.sent += 1
        key = status if status is not None else "no answer (malformed)" if malformed else "no answer"
        self.statuses[key] = self.statuses.get(key, 0) + 1
        if status is None:
            self.unanswered += 1
        if status is None and not malformed:
            # A whole request left unanswered (4 s, or 120 s where a remote is waited for): something hung.
            self.failures.append("no answer in %d s to %s" % (self.patience(raw), raw.split(b"\r\n")[0][:200].decode("latin-1")))
        busy = status == 503 and "retry-after:" in head.lower()
        if status is not None and status >= 500 and not busy:
            os.makedirs(FINDINGS, exist_ok=True)
            name = os.path.join(FINDINGS, "finding-%d-%d.txt" % (status, len(self.failures)))
            with open(name, "wb") as out:
                out.write(raw)
            self.failures.append("%d for %s (saved in %s)" % (status, raw.split(b"\r\n")[0][:200].decode("latin-1"), name))

    # An admin's import of a URL and a reload's "Tell now" answer when the remote does: an unreachable host takes the
    # fetcher's connect timeouts and retries (a clean-clone run once saw POST /admin/import pass 4 s). Everything else
    # answers at once, or it hung.
    WAITS_FOR_A_REMOTE = (b"POST /admin/import", b"POST /admin/feeds/reloads/tell")

    def patience(self, raw):
        return 120 if raw.startswith(self.WAITS_FOR_A_REMOTE) else 4

    def alive(self):
        if self.server.process.poll() is not None:
            return False
        status, _ = self.exchange(self.request("GET", "/api/coverage"))
        return status == 200

    # The time a run may add for requests that wait for a remote: one admin import of a public address took 74 s of
    # connect timeouts and retries (no network here), which left a 60 s run 4 requests (seed 1796536415).
    MOST_WAITED = 150

    def run(self, seconds):
        end = time.time() + seconds
        waited = 0.0
        while time.time() < end:
            raw, malformed = self.one()
            began = time.time()
            try:
                status, head = self.exchange(raw, timeout=self.patience(raw))
            except OSError:
                status, head = None, ""
            if raw.startswith(self.WAITS_FOR_A_REMOTE):
                # Such a wait is not fuzzing: the run's time is given back, up to MOST_WAITED in all.
                given = min(time.time() - began, self.MOST_WAITED - waited)
                waited += given
                end += given
            self.check(raw, malformed, status, head)
            if self.sent % 200 == 0 and not self.alive():
                self.failures.append("the server stopped answering after %d requests" % self.sent)
                break
        if not self.alive():
            self.failures.append("the server is not answering at the end")


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else int(time.time())
    replay_port = free_port()
    replay = subprocess.Popen([REPLAY, str(replay_port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = Server(["--tvmaze-url", "http://127.0.0.1:%d" % replay_port, "--trusted-proxy", "127.0.0.1"])
    try:
        fuzzer = Fuzzer(server, seed)
        began = time.time()
        fuzzer.run(seconds)
        took = time.time() - began
        answered = {str(k): v for k, v in sorted(fuzzer.statuses.items(), key=lambda item: str(item[0]))}
        print("http-fuzz: seed %d, %d requests in %.0f s (%.0f/s), answers %s; %d failures (answers >= 500 but a busy 503, "
              "or a whole request unanswered), server %s"
              % (seed, fuzzer.sent, took, fuzzer.sent / max(took, 1), answered, len(fuzzer.failures),
                 "up" if server.process.poll() is None else "DOWN"))
        for failure in fuzzer.failures[:20]:
            print("http-fuzz: FAILED: " + failure)
        if fuzzer.failures:
            print("http-fuzz: the server's log: " + server.text()[-3000:])
        return 1 if fuzzer.failures else 0
    finally:
        server.stop()
        replay.terminate()


if __name__ == "__main__":
    sys.exit(main())
