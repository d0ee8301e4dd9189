"""Debian's Kodi as a test peer: started under Xvfb with a home of its own, driven over its JSON-RPC TCP interface.

Needs kodi, kodi-pvr-iptvsimple (with kodi-inputstream-adaptive, -ffmpegdirect and -rtmp) and xvfb; Python's standard
library only.
"""
import json
import os
import resource
import shutil
import socket
import subprocess
import tempfile
import time

from xml.sax.saxutils import escape

# The add-ons IPTV Simple needs enabled before it may be (Debian installs them disabled, as Kodi does any add-on it
# finds on disk), in that order.
IPTV_SIMPLE = ["inputstream.adaptive", "inputstream.ffmpegdirect", "inputstream.rtmp", "pvr.iptvsimple"]


class KodiError(RuntimeError):
    """A JSON-RPC error answer (-32100 "Failed to execute method" while the PVR manager is still starting)."""


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Kodi:
    """Kodi 20 under Xvfb, its clock the machine's in UTC, with IPTV Simple reading `settings` (the add-on's setting
    ids and values: the playlist's and guide's addresses) once enabled. `call` is one JSON-RPC request."""

    def __init__(self, settings):
        self.home = tempfile.mkdtemp(prefix="tvguide-kodi-")
        self.port = free_port()
        userdata = os.path.join(self.home, ".kodi", "userdata")
        os.makedirs(os.path.join(userdata, "addon_data", "pvr.iptvsimple"))
        with open(os.path.join(userdata, "advancedsettings.xml"), "w") as file:
            file.write("<advancedsettings version=\"1.0\"><jsonrpc><tcpport>%d</tcpport></jsonrpc></advancedsettings>\n"
                       % self.port)
        # Channel numbers as the playlist gives them (Kodi's "Use channel numbers from backend"), not Kodi's own count.
        with open(os.path.join(userdata, "guisettings.xml"), "w") as file:
            file.write("<settings version=\"2\">\n    <setting id=\"pvrmanager.usebackendchannelnumbers\">true</setting>\n</settings>\n")
        with open(os.path.join(userdata, "addon_data", "pvr.iptvsimple", "settings.xml"), "w") as file:
            file.write("<settings version=\"2\">\n")
            for key, value in settings.items():
                file.write("    <setting id=\"%s\">%s</setting>\n" % (key, escape(str(value))))
            file.write("</settings>\n")
        self.log = open(os.path.join(self.home, "kodi-output.txt"), "a+")
        environment = dict(os.environ, HOME=self.home, TZ="UTC", KODI_AE_SINK="NULL")
        self.process = subprocess.Popen(
            ["xvfb-run", "--auto-servernum", "--server-args=-screen 0 1280x720x24", "kodi"],
            stdout=self.log, stderr=subprocess.STDOUT, env=environment, start_new_session=True, cwd=self.home,
            # No core file (Kodi 20 may crash on its way out, after the test has what it needs).
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CORE, (0, 0)))
        self.connection = None
        deadline = time.time() + 120
        while self.connection is None:
            try:
                self.connection = socket.create_connection(("127.0.0.1", self.port), timeout=60)
            except OSError:
                if self.process.poll() is not None or time.time() > deadline:
                    raise RuntimeError("Kodi's JSON-RPC did not open:\n" + self.output())
                time.sleep(0.5)
        self.buffer = ""
        self.next_id = 0

    def call(self, method, **params):
        """One request's result; notifications that arrive meanwhile are skipped."""
        self.next_id += 1
        self.connection.sendall(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}).encode())
        decoder = json.JSONDecoder()
        while True:
            self.buffer = self.buffer.lstrip()
            try:
                message, end = decoder.raw_decode(self.buffer)
            except ValueError:
                chunk = self.connection.recv(1 << 20)
                if not chunk:
                    raise RuntimeError("Kodi closed its JSON-RPC connection:\n" + self.output())
                self.buffer += chunk.decode("utf-8")
                continue
            self.buffer = self.buffer[end:]
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise KodiError("%s: %s" % (method, message["error"]))
                return message["result"]

    def enable_iptv_simple(self):
        for addon in IPTV_SIMPLE:
            self.call("Addons.SetAddonEnabled", addonid=addon, enabled=True)

    def wait(self, what, condition, seconds):
        """Polls `condition` (a function returning a true value when met) until it is met or `seconds` pass."""
        deadline = time.time() + seconds
        while True:
            result = condition()
            if result:
                return result
            if time.time() > deadline or self.process.poll() is not None:
                raise AssertionError("Kodi: %s, not within %d s; its log:\n%s" % (what, seconds, self.kodi_log()[-6000:]))
            time.sleep(1)

    def output(self):
        self.log.seek(0)
        return self.log.read()

    def kodi_log(self):
        try:
            with open(os.path.join(self.home, ".kodi", "temp", "kodi.log"), errors="replace") as file:
                return file.read()
        except OSError:
            return self.output()

    def stop(self):
        """Asks Kodi to quit, then ends whatever of it and its X server is left (they share a process group)."""
        if self.connection:
            try:
                self.call("Application.Quit")
            except (OSError, RuntimeError):
                pass
            self.connection.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(self.process.pid, 9)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=10)
        self.log.close()
        shutil.rmtree(self.home, ignore_errors=True)

