"""What strangers send a server during the soak (issue 43): guests posting large bodies it must not read, viewers
uploading zips that inflate past their limit, and a broker that restarts under the Home Assistant bridge.

Each is a traffic thread for Soak (soak.py): it runs until `stop` is set, counts its answers with `count`, and records
what it measured in `results`. Run alone, `large_bodies` measures the figure issue 43 asked for: four guests posting
50 MB at once to the history import hold serve under 150 MB.

    /usr/bin/python3 Tests/Soak/strangers.py
"""
import io
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

FIFTY_MB = 50 << 20


def post_large(port, path, length, headers=(), source="127.0.0.1", timeout=30):
    """POSTs `length` bytes to `path`, streamed (the sender holds 64 KiB), until the server answers or closes.
    Returns (status or None, bytes sent)."""
    lines = ["POST %s HTTP/1.1" % path, "Host: 127.0.0.1", "Content-Length: %d" % length,
             "Content-Type: multipart/form-data; boundary=x"] + ["%s: %s" % h for h in headers]
    chunk = b"a" * 65536
    sent = 0
    answer = b""
    try:
        with socket.socket() as connection:
            connection.settimeout(timeout)
            connection.bind((source, 0))
            connection.connect(("127.0.0.1", port))
            connection.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
            connection.setblocking(False)
            deadline = time.time() + timeout
            while time.time() < deadline:
                try:
                    got = connection.recv(65536)
                    answer += got
                    if not got or b"\r\n\r\n" in answer:
                        break
                except BlockingIOError:
                    pass
                if sent < length:
                    try:
                        sent += connection.send(chunk[:min(len(chunk), length - sent)])
                    except BlockingIOError:
                        time.sleep(0.01)
                else:
                    time.sleep(0.01)
    except OSError:
        pass
    status = int(answer[9:12]) if answer.startswith(b"HTTP/1.1 ") else None
    return status, sent


def rss_mb(pid):
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def at_once(pid, count, one):
    """Runs one(index) for each of `count` callers at once, serve's RSS read every 20 ms meanwhile; (their results,
    the peak RSS in MB)."""
    results = [None] * count
    peak = [rss_mb(pid)]
    done = threading.Event()

    def watch():
        while not done.is_set():
            peak[0] = max(peak[0], rss_mb(pid))
            time.sleep(0.02)

    def run(index):
        results[index] = one(index)

    watcher = threading.Thread(target=watch)
    watcher.start()
    threads = [threading.Thread(target=run, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    done.set()
    watcher.join()
    return results, peak[0]


def four_guest_uploads(port, pid):
    """Four guests post 50 MB each at once to the history import; (statuses, MB each sent, peak RSS in MB)."""
    results, peak = at_once(pid, 4, lambda index: post_large(port, "/history/import", FIFTY_MB, source="127.0.0.%d" % (20 + index)))
    return [r[0] for r in results], [round(r[1] / (1 << 20), 1) for r in results], peak


def bomb_zip(megabytes=500):
    """About 0.5 MB of zip holding `megabytes` MB of zeros, its member saying it holds as much as a zip of that size
    may (50 times its size, and 1 MB): the most memory serve may give it before finding it damaged."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("history.csv", "w", force_zip64=False) as member:
            for _ in range(megabytes):
                member.write(bytes(1 << 20))
    data = bytearray(out.getvalue())
    said = min(len(data) * 50 + (1 << 20), 50 << 20) - 1024
    struct.pack_into("<I", data, 22, said)
    struct.pack_into("<I", data, data.rfind(b"PK\x01\x02") + 24, said)
    return bytes(data)


def upload(port, session, csrf, name, blob, timeout=120):
    """A signed-in profile's history import of one file, as its page's form posts it; the status."""
    boundary = "----soak"
    body = ("--%s\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n%s\r\n--%s\r\nContent-Disposition: form-data; "
            "name=\"export\"; filename=\"%s\"\r\nContent-Type: application/zip\r\n\r\n" % (boundary, csrf, boundary, name)).encode()
    body += blob + ("\r\n--%s--\r\n" % boundary).encode()
    head = ("POST /history/import HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nCookie: tvguide_session=%s\r\n"
            "Content-Type: multipart/form-data; boundary=%s\r\nContent-Length: %d\r\n\r\n" % (session, boundary, len(body))).encode()
    answer = b""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        connection.sendall(head + body)
        while b"\r\n" not in answer:
            got = connection.recv(65536)
            if not got:
                break
            answer += got
    match = re.match(rb"HTTP/1\.1 (\d{3})", answer)
    return int(match.group(1)) if match else None


def three_bombs(port, pid, session, csrf, blob):
    """Three viewers' bomb zips at once; (statuses, peak RSS in MB)."""
    return at_once(pid, 3, lambda index: upload(port, session, csrf, "export-%d.zip" % index, blob))


class Broker:
    """Debian's mosquitto on a free loopback port, anonymous, forgetting everything when it restarts."""

    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="tvguide-soak-mqtt-")
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        with open(os.path.join(self.folder, "mosquitto.conf"), "w") as conf:
            conf.write("listener %d 127.0.0.1\nallow_anonymous true\npersistence false\n" % self.port)
        self.process = None
        self.start()

    def start(self):
        self.process = subprocess.Popen(["/usr/sbin/mosquitto", "-c", os.path.join(self.folder, "mosquitto.conf")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            if subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(self.port), "-t", "probe", "-n"],
                              capture_output=True).returncode == 0:
                return
            time.sleep(0.05)

    def restart(self):
        self.process.terminate()
        self.process.wait()
        self.start()

    def retained(self, topic):
        read = subprocess.run(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(self.port), "-t", topic, "-C", "1", "-W", "2",
                               "--retained-only"], capture_output=True, text=True)
        return read.stdout.strip() if read.returncode == 0 else None

    def answer(self, command):
        """tvguide's answer to `command`, or None within 10 s."""
        waiting = subprocess.Popen(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(self.port), "-t", "tvguide/command/result",
                                    "-C", "1", "-W", "10"], stdout=subprocess.PIPE, text=True)
        time.sleep(0.3)
        subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(self.port), "-t", "tvguide/command", "-m", command, "-q", "1"])
        out, _ = waiting.communicate(timeout=20)
        return out.strip() or None

    def close(self):
        self.process.terminate()
        self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)

    @staticmethod
    def installed():
        return os.path.exists("/usr/sbin/mosquitto") and shutil.which("mosquitto_pub") is not None


class Strangers:
    """The soak's stranger traffic: four guests' 50 MB uploads every 30 s (the peak RSS of each burst kept), three
    viewers' bomb zips every 60 s, and the Home Assistant broker restarted every 3 minutes (tvguide must be online
    and answering a command again within 60 s of each)."""

    def __init__(self, soak, broker):
        self.soak = soak
        self.broker = broker
        self.bursts = []
        self.bombs = []
        self.restarts = []
        self.blob = bomb_zip()

    def workers(self):
        return [self.large_bodies, self.zips] + ([self.broker_restarts] if self.broker else [])

    def large_bodies(self):
        while not self.soak.stop.wait(30):
            before = rss_mb(self.soak.server.process.pid)
            statuses, sent, peak = four_guest_uploads(self.soak.server.port, self.soak.server.process.pid)
            for status in statuses:
                self.soak.count(status, "", "a guest's 50 MB upload")
            self.bursts.append((statuses, max(sent), peak, peak - before))

    def zips(self):
        # A session of its own: the hostile requests carry the fuzzer's, and may sign it out.
        session = self.soak.sign_in("Ada", "correct horse")
        _, _, page = self.soak.fuzzer.page("/search", "tvguide_session=" + session)
        csrf = self.soak.fuzzer.form_token(page)
        while not self.soak.stop.wait(60):
            before = rss_mb(self.soak.server.process.pid)
            statuses, peak = three_bombs(self.soak.server.port, self.soak.server.process.pid, session, csrf, self.blob)
            for status in statuses:
                self.soak.count(status, "", "a viewer's bomb zip")
            self.bombs.append((statuses, peak - before))

    def broker_restarts(self):
        while not self.soak.stop.wait(180):
            self.broker.restart()
            began, back = time.time(), False
            while time.time() - began < 60 and not back:
                back = self.broker.retained("tvguide/status") == "online" and self.broker.answer('{"action": "explode"}') is not None
                if not back:
                    time.sleep(2)
            self.restarts.append((back, time.time() - began))

    def report(self):
        lines = []
        if self.bursts:
            lines.append("soak: %d bursts of four guests' 50 MB uploads: answered %s, at most %.1f MB of one sent before the answer; "
                         "RSS at most %.0f MB, raised by a burst at most %.0f MB"
                         % (len(self.bursts), sorted({s for statuses, _, _, _ in self.bursts for s in statuses}, key=str),
                            max(sent for _, sent, _, _ in self.bursts), max(peak for _, _, peak, _ in self.bursts),
                            max(raised for _, _, _, raised in self.bursts)))
        if self.bombs:
            lines.append("soak: %d rounds of three viewers' %.2f MB zips of 500 MB: answered %s; RSS raised at most %.0f MB"
                         % (len(self.bombs), len(self.blob) / (1 << 20), sorted({s for statuses, _ in self.bombs for s in statuses}, key=str),
                            max(raised for _, raised in self.bombs)))
        if self.restarts:
            lines.append("soak: the broker restarted %d times: tvguide back and answering after %s s"
                         % (len(self.restarts), ", ".join("%.0f" % took if back else "NEVER" for back, took in self.restarts)))
        return lines

    def problems(self):
        found = []
        # Under the soak's other traffic serve lives at 150-170 MB: what counts is what a burst adds (four bodies read
        # would add 200 MB). Alone (main() below), serve stays under 150 MB.
        if any(raised >= 50 for _, _, _, raised in self.bursts):
            found.append("four guests' uploads raised serve by %.0f MB" % max(r for _, _, _, r in self.bursts))
        if any(s != 303 for statuses, _, _, _ in self.bursts for s in statuses):
            found.append("a guest's upload was not sent to sign in: %s" % [statuses for statuses, _, _, _ in self.bursts])
        if any(s in (None, 303) or s >= 500 for statuses, _ in self.bombs for s in statuses):
            found.append("a viewer's bomb zip was not refused as a zip: %s" % [statuses for statuses, _ in self.bombs])
        if any(raised >= 3 * 50 for _, raised in self.bombs):
            found.append("three bomb zips raised serve by %.0f MB (each may hold at most 26)" % max(r for _, r in self.bombs))
        if not all(back for back, _ in self.restarts):
            found.append("tvguide did not come back to the broker within 60 s of a restart: %s" % self.restarts)
        return found


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(os.path.dirname(here), "Browser"))
    sys.path.insert(0, os.path.join(os.path.dirname(here), "Fuzz"))
    from tvguide_server import Server
    from http_fuzz import Fuzzer
    server = Server()
    try:
        fuzzer = Fuzzer(server, 7)  # sets up the admin Ada
        time.sleep(2)
        before = rss_mb(server.process.pid)
        statuses, sent, peak = four_guest_uploads(server.port, server.process.pid)
        print("four guests' 50 MB uploads: answered %s, MB sent before the answer %s; serve's RSS %.0f MB before, peak %.0f MB"
              % (statuses, sent, before, peak))
        ok = peak < 150 and all(s == 303 for s in statuses)
        blob = bomb_zip()
        before = rss_mb(server.process.pid)
        answers, bombed = three_bombs(server.port, server.process.pid, fuzzer.session, fuzzer.csrf, blob)
        print("three viewers' %.2f MB zips of 500 MB each at once: answered %s; serve's RSS %.0f MB before, peak %.0f MB (+%.0f MB)"
              % (len(blob) / (1 << 20), answers, before, bombed, bombed - before))
        return 0 if ok and bombed - before < 3 * 50 else 1
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
