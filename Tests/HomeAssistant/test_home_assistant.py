#!/usr/bin/python3
"""Home Assistant itself reading tvguide: Home Assistant 2024.2.5 (the newest for Debian 12's Python 3.11, from PyPI in
a virtual environment of its own) with its MQTT integration, set up as a user does (onboarding, then the MQTT
integration's own configuration flow), on Debian's mosquitto; `tvguide serve` with `home-assistant` pointed at the same
broker. Everything is read back through Home Assistant's REST API:

- the sensors tvguide announces exist, one per favourite channel, each with what tvguide's own API says is on now;
- an `mqtt.publish` service call in Home Assistant (a "remind" command) sets a reminder in tvguide, and the command's
  result comes back into Home Assistant (an MQTT sensor on `tvguide/command/result`);
- that reminder, sent when due, fires Home Assistant's event entity with its title: the profile has no delivery channel
  of its own, Home Assistant's event being its delivery;
- a command naming another profile is refused, and sets nothing.

Run by scripts/test in a step of its own, with a time bound:
    TVGUIDE_TEST_HASS=.build/home-assistant/bin/hass /usr/bin/python3 Tests/HomeAssistant/test_home_assistant.py
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "Browser"))

from tvguide_server import ROOT, Server, free_port  # noqa: E402

HASS = os.environ.get("TVGUIDE_TEST_HASS", os.path.join(ROOT, ".build", "home-assistant", "bin", "hass"))


def wait_for(what, check, seconds=60, every=0.5):
    """`check()`'s first truthy answer within `seconds`; else the test fails, naming `what`."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        answer = check()
        if answer:
            return answer
        time.sleep(every)
    raise AssertionError("waited %d s for %s" % (seconds, what))


class Broker:
    """Debian's mosquitto on a free loopback port, anonymous (the broker's users are not what this test is about)."""

    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="tvguide-ha-broker-")
        self.port = free_port()
        with open(os.path.join(self.folder, "mosquitto.conf"), "w") as conf:
            conf.write("listener %d 127.0.0.1\nallow_anonymous true\npersistence false\n" % self.port)
        self.process = subprocess.Popen(["/usr/sbin/mosquitto", "-c", os.path.join(self.folder, "mosquitto.conf")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=20)
        shutil.rmtree(self.folder, ignore_errors=True)


class HomeAssistant:
    """Home Assistant on a free loopback port with a configuration of its own: onboarded (its first user, whose token
    the REST calls carry), then the MQTT integration added through its configuration flow, as its UI adds it."""

    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="tvguide-ha-")
        self.port = free_port()
        self.base = "http://127.0.0.1:%d" % self.port
        with open(os.path.join(self.folder, "configuration.yaml"), "w") as conf:
            conf.write(CONFIGURATION % {"port": self.port})
        self.log = open(os.path.join(self.folder, "hass.log"), "a+")
        self.process = subprocess.Popen([HASS, "-c", self.folder], stdout=self.log, stderr=subprocess.STDOUT)

    def set_up(self, broker):
        """Waits for it to answer, onboards it and adds the MQTT integration for `broker`; its log's end when it fails."""
        try:
            self.onboard(broker)
        except Exception:
            print(self.text()[-4000:], file=sys.stderr)
            raise

    def onboard(self, broker):
        wait_for("Home Assistant to answer", self.answers, seconds=300)
        client = self.base + "/"
        user = self.call("POST", "/api/onboarding/users", {"client_id": client, "name": "Test", "username": "test",
                                                          "password": "a long test password", "language": "en"}, token=False)
        form = urllib.parse.urlencode({"grant_type": "authorization_code", "code": user["auth_code"], "client_id": client})
        with urllib.request.urlopen(urllib.request.Request(self.base + "/auth/token", data=form.encode()), timeout=30) as answer:
            self.token = json.load(answer)["access_token"]
        flow = self.call("POST", "/api/config/config_entries/flow", {"handler": "mqtt", "show_advanced_options": False})
        entry = self.call("POST", "/api/config/config_entries/flow/" + flow["flow_id"], {"broker": "127.0.0.1", "port": broker.port})
        assert entry["type"] == "create_entry" and entry["result"]["state"] == "loaded", entry

    def answers(self):
        try:
            with urllib.request.urlopen(self.base + "/api/onboarding", timeout=5):
                return True
        except OSError:
            if self.process.poll() is not None:
                raise RuntimeError("Home Assistant exited:\n" + self.text())
            return False

    def call(self, method, path, body=None, token=True):
        request = urllib.request.Request(self.base + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        if token:
            request.add_header("Authorization", "Bearer " + self.token)
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.load(answer)

    def states(self):
        return self.call("GET", "/api/states")

    def state(self, entity):
        return next((s for s in self.states() if s["entity_id"] == entity), None)

    def text(self):
        self.log.seek(0)
        return self.log.read()

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


# What Home Assistant runs with: its REST API (and the configuration flows' API, for the MQTT integration), the
# onboarding, and an MQTT sensor of its own on the topic tvguide answers commands on.
CONFIGURATION = """
homeassistant:
  name: tvguide test
  time_zone: UTC
  latitude: 0
  longitude: 0
  elevation: 0
  unit_system: metric
  country: GB
http:
  server_host: 127.0.0.1
  server_port: %(port)d
api:
config:
onboarding:
logger:
  default: warning
mqtt:
  sensor:
    - name: tvguide command result
      unique_id: tvguide_test_command_result
      state_topic: tvguide/command/result
      value_template: "{{ 'ok' if value_json.ok else 'refused' }}"
      json_attributes_topic: tvguide/command/result
"""


class Browser:
    """tvguide's pages as a browser uses them: its cookies (sent back over loopback's plain HTTP, as a browser treats
    loopback as secure), and each form's token from the page it is on."""

    def __init__(self, server):
        self.server = server
        self.cookies = {}

    def open(self, path, data=None):
        request = urllib.request.Request(self.server.url(path), data=data)
        if self.cookies:
            request.add_header("Cookie", "; ".join("%s=%s" % pair for pair in self.cookies.items()))
        with urllib.request.build_opener(NoRedirects).open(request, timeout=30) as answer:
            for header in answer.headers.get_all("Set-Cookie") or []:
                name, value = header.split(";", 1)[0].split("=", 1)
                self.cookies[name.strip()] = value
            location = answer.headers.get("Location")
            return self.open(location) if location else answer.read().decode()

    def get(self, path):
        return self.open(path)

    def post(self, page, path, fields):
        token = re.search(r'name="csrf" value="([^"]+)"', self.get(page)).group(1)
        return self.open(path, urllib.parse.urlencode(dict(fields, csrf=token)).encode())

    def json(self, path):
        return json.loads(self.get(path))


class NoRedirects(urllib.request.HTTPRedirectHandler):
    """Redirects answered as they are, so the cookies they set are kept before following them."""

    def redirect_request(self, *arguments):
        return None

    def http_error_303(self, request, answer, *arguments):
        return answer

    http_error_302 = http_error_301 = http_error_307 = http_error_303


class HomeAssistantTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Each part is stopped by a class cleanup, which runs even when setting up fails part way (tearDownClass does
        # not), so no Home Assistant or serve outlives a failed run.
        cls.broker = Broker()
        cls.addClassCleanup(cls.broker.stop)
        cls.started = time.time()
        cls.hass = HomeAssistant()
        cls.addClassCleanup(cls.hass.stop)
        cls.hass.set_up(cls.broker)
        cls.hass_seconds = time.time() - cls.started
        print("Home Assistant took %.0f s to start and be set up" % cls.hass_seconds, file=sys.stderr)
        # The bundled sample on its own days (tvguide_server's clock); Ada is who Home Assistant acts for.
        cls.server = Server(["--home-assistant", "mqtt://127.0.0.1:%d" % cls.broker.port, "--home-assistant-profile", "Ada",
                             "--allowed-hosts", "loopback"])
        cls.addClassCleanup(cls.server.stop)
        cls.ada = Browser(cls.server)
        cls.ada.post("/setup", "/setup", {"code": cls.server.setup_code, "name": "Ada", "kind": "password", "secret": "correct horse"})
        cls.ada.post("/admin", "/admin/profiles", {"name": "Kid", "role": "viewer", "kind": "pin", "secret": "2468"})
        # Three favourites: channels with something on now and something starting within the quarter hour.
        on_now = [row for row in cls.ada.json("/api/now") if row["now"] and row["next"]]
        soon = [row for row in on_now if 60 < iso(row["next"]["start"]) - now_of(cls.server) < 14 * 60]
        assert soon, "the sample has no channel whose next programme starts within the quarter hour"
        cls.favourites = (soon[:1] + [row for row in on_now if row not in soon[:1]])[:3]
        for row in cls.favourites:
            cls.ada.post("/channels", "/favourites", {"channel": row["channel"], "favourite": "1"})

    def sensors(self):
        """Home Assistant's tvguide sensors, by the channel id in their attributes."""
        return {s["attributes"]["channel_id"]: s for s in self.hass.states()
                if s["entity_id"].startswith("sensor.") and "channel_id" in s["attributes"]}

    def test_1_each_favourite_is_a_sensor_with_what_is_on(self):
        sensors = wait_for("a sensor per favourite", lambda: (lambda found: found if len(found) == len(self.favourites) else None)(self.sensors()))
        for row in self.favourites:
            sensor = sensors[row["channel"]]
            self.assertEqual(sensor["state"], row["now"]["title"][:255], sensor)
            self.assertEqual(sensor["attributes"]["programme_id"], row["now"]["id"], sensor)
            self.assertEqual(sensor["attributes"]["next"]["programme_id"], row["next"]["id"], sensor)
        self.assertEqual(self.hass.state("sensor.tvguide_command_result")["state"], "unknown")

    def test_2_a_service_call_sets_a_reminder_and_its_event_fires(self):
        event = wait_for("the reminder event entity", lambda: next((s for s in self.hass.states() if s["entity_id"].startswith("event.")
                                                                    and "reminder" in s["attributes"].get("event_types", [])), None))
        before = event["state"]
        soonest = self.favourites[0]["next"]
        self.hass.call("POST", "/api/services/mqtt/publish",
                       {"topic": "tvguide/command", "payload": json.dumps({"action": "remind", "programme": soonest["id"], "lead": 15})})
        result = wait_for("the command's result in Home Assistant",
                          lambda: (lambda s: s if s and s["state"] != "unknown" else None)(self.hass.state("sensor.tvguide_command_result")))
        self.assertEqual(result["state"], "ok", result)
        reminders = self.ada.json("/api/reminders")["reminders"]
        self.assertIn((soonest["channel"], soonest["start"], 15), [(r["channel"], r["start"], r["leadMinutes"]) for r in reminders])
        # Due at once (it starts within the quarter hour): sent in the dispatcher's next round, within 10 s.
        fired = wait_for("the reminder event", lambda: (lambda s: s if s["state"] != before else None)(self.hass.state(event["entity_id"])), 60)
        self.assertEqual(fired["attributes"]["event_type"], "reminder", fired)
        self.assertEqual(fired["attributes"]["title"], soonest["title"], fired)
        sent = [r for r in self.ada.json("/api/reminders")["reminders"] if (r["channel"], r["start"]) == (soonest["channel"], soonest["start"])]
        self.assertEqual(sent[0]["state"], "sent", sent)

    def test_3_a_command_for_another_profile_is_refused(self):
        before = self.ada.json("/api/reminders")
        later = self.favourites[-1]["next"]
        self.hass.call("POST", "/api/services/mqtt/publish",
                       {"topic": "tvguide/command", "payload": json.dumps({"action": "remind", "programme": later["id"], "profile": "Kid"})})
        refused = wait_for("the refusal in Home Assistant",
                           lambda: (lambda s: s if s and s["state"] == "refused" else None)(self.hass.state("sensor.tvguide_command_result")))
        self.assertIn("error", refused["attributes"], refused)
        self.assertEqual(self.ada.json("/api/reminders"), before)


def iso(text):
    """Seconds since 1970 of an ISO 8601 UTC instant."""
    return time.mktime(time.strptime(text.replace("Z", ""), "%Y-%m-%dT%H:%M:%S")) - time.timezone


def now_of(server):
    """The server's clock now (its --pretend-now, moving on since it started)."""
    return time.time() - server.started + iso(server.now)


if __name__ == "__main__":
    unittest.main(verbosity=2)
