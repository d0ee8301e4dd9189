#!/usr/bin/python3
"""The installed guide in a real browser (Debian's chromium, driven by selenium): the manifest and chromium's own
installability check, the service worker and its copy of the listings, the grid, the now page and a programme's
details with the network off (emulated through the DevTools protocol, for the page and for the service worker), and
"Notify this browser" on /reminders delivering a test through a loopback push receiver that decrypts it.

A real `tvguide serve` on the bundled sample listings, its clock at 2026-02-15 20:30 UTC, the browser in UTC.
Run by scripts/test after test_guide.py: /usr/bin/python3 Tests/Browser/test_offline.py
"""
import atexit
import base64
import html
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser_support import DAY, SHOTS, Forms, OwnServer
from tvguide_server import ROOT, BINARY

LISTINGS = "tvguide-listings-v2"
CELL = re.compile(r'href="/programmes/(\d+)" data-start="(-?\d+)" data-end="(-?\d+)"><span class="t" dir="auto">([^<]*)</span>')


def cells(row):
    """The programmes of a kept row, read from its markup (the grid's own, GridRowsHTML): id, start, end and title."""
    return [{"id": int(m.group(1)), "start": int(m.group(2)), "end": int(m.group(3)), "title": html.unescape(m.group(4))}
            for m in CELL.finditer(row["html"])]


# A grabber that takes 8 seconds to say what it is: the grabbers page waits for it, longer than the worker's wait.
SLOW_GRABBERS = tempfile.mkdtemp(prefix="tvguide-slow-grabber-")
atexit.register(shutil.rmtree, SLOW_GRABBERS, True)
with open(os.path.join(SLOW_GRABBERS, "tv_grab_zz_slow"), "w") as script:
    script.write('#!/bin/sh\ncase "$1" in --description) sleep 8; echo "A slow grabber";; --capabilities) echo baseline;; esac\n')
os.chmod(os.path.join(SLOW_GRABBERS, "tv_grab_zz_slow"), 0o755)


class OfflineTests(OwnServer, Forms, unittest.TestCase):
    @classmethod
    def serve_options(cls):
        return ["--grabber-path", SLOW_GRABBERS]

    def setUp(self):
        self.network(offline=False)

    # The service worker and its copy -----------------------------------------------------------------------------

    def wait_for_copy(self, viewer=""):
        """Waits until the page is controlled by the service worker and it keeps a copy made for `viewer`; the copy."""
        driver = self.driver
        WebDriverWait(driver, 30).until(lambda d: d.execute_script("return !!navigator.serviceWorker.controller"))

        def kept(d):
            return d.execute_async_script("""
                var name = arguments[0], viewer = arguments[1], done = arguments[2];
                caches.open(name).then((cache) => cache.match('/offline/listings'))
                  .then((r) => r && r.headers.get('X-Tvguide-Viewer') === viewer ? r.json() : null)
                  .then(done, () => done(null));""", LISTINGS, viewer)
        copy = WebDriverWait(driver, 60, poll_frequency=0.5).until(kept)
        return copy

    def network(self, offline):
        """Emulates the network gone (or back) through the DevTools protocol, for the page and for every service
        worker: the worker fetches on its own, and the page's emulation does not reach it. Each worker's session is
        kept, so going back online lifts the emulation it set, then leaves."""
        conditions = {"offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
        driver = self.driver

        def send(session, number, method, parameters):
            driver.execute_cdp_cmd("Target.sendMessageToTarget", {"sessionId": session, "message": json.dumps(
                {"id": number, "method": method, "params": parameters})})
        sessions = getattr(self, "worker_sessions", [])
        if offline:
            for target in driver.execute_cdp_cmd("Target.getTargets", {})["targetInfos"]:
                if target["type"] == "service_worker":
                    session = driver.execute_cdp_cmd("Target.attachToTarget", {"targetId": target["targetId"], "flatten": False})["sessionId"]
                    send(session, 1, "Network.enable", {})
                    send(session, 2, "Network.emulateNetworkConditions", conditions)
                    sessions.append(session)
        else:
            for session in sessions:
                try:
                    send(session, 3, "Network.emulateNetworkConditions", conditions)
                    driver.execute_cdp_cmd("Target.detachFromTarget", {"sessionId": session})
                except Exception:
                    pass   # the worker has stopped since, and its emulation with it
            sessions = []
        self.worker_sessions = sessions
        # The page last: coming back, its "online" event then finds the worker's network back too.
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", conditions)

    def banner(self):
        found = self.driver.find_elements(By.ID, "offline-banner")
        return found[0].text if found and found[0].is_displayed() else ""

    def test_manifest_is_valid_and_chromium_finds_the_guide_installable(self):
        driver = self.driver
        driver.get(self.server.url("/now"))
        self.wait_for_copy()
        with urllib.request.urlopen(self.server.url("/manifest.webmanifest")) as answer:
            self.assertEqual(answer.headers["Content-Type"], "application/manifest+json")
            manifest = json.load(answer)
        self.assertEqual((manifest["name"], manifest["short_name"], manifest["start_url"], manifest["display"]),
                         ("tvguide", "tvguide", "/now", "standalone"))
        self.assertRegex(manifest["theme_color"], r"^#[0-9a-f]{6}$")
        sizes = set()
        for icon in manifest["icons"]:
            with urllib.request.urlopen(self.server.url(icon["src"])) as answer:
                self.assertEqual(answer.headers["Content-Type"], "image/png")
                body = answer.read()
            width, height = struct.unpack(">II", body[16:24])   # a PNG's IHDR
            self.assertEqual("%dx%d" % (width, height), icon["sizes"])
            sizes.add((icon["sizes"], icon["purpose"]))
        self.assertLessEqual({("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")}, sizes)
        # chromium's own reading of the manifest, and its verdict on installing the page.
        parsed = driver.execute_cdp_cmd("Page.getAppManifest", {})
        self.assertEqual(parsed.get("errors"), [], parsed.get("errors"))
        self.assertEqual(driver.execute_cdp_cmd("Page.getInstallabilityErrors", {})["installabilityErrors"], [])

    def test_slow_page_with_nothing_kept_waits_for_the_server(self):
        # The worker answers from its copy when the server is slow; a page it keeps nothing of (an admin's) still
        # gets the server's answer, however long it takes, rather than the browser's "can't be reached".
        driver = self.driver
        self.sign_in_admin()
        driver.get(self.server.url("/now"))
        WebDriverWait(driver, 30).until(lambda d: d.execute_script("return !!navigator.serviceWorker.controller"))
        started = time.monotonic()
        driver.get(self.server.url("/admin/grabbers"))
        self.assertGreater(time.monotonic() - started, 6)
        self.assertIn("A slow grabber", driver.find_element(By.CSS_SELECTOR, "tr[data-grabber='tv_grab_zz_slow']").text)

    def test_offline_the_grid_the_now_page_and_details_come_from_the_copy(self):
        driver = self.driver
        driver.get(self.server.url("/now"))
        copy = self.wait_for_copy()
        # Guests keep the guide's first 60 channels for three days; caches are this worker's two, versioned.
        self.assertEqual(copy["channels"], 60)
        self.assertEqual([day["day"] for day in copy["days"]], ["2026-02-15", "2026-02-16", "2026-02-17"])
        self.assertEqual(len(copy["panels"]) + copy["panelsLeftOut"],
                         len({cell["id"] for day in copy["days"] for row in day["rows"] for cell in cells(row)}))
        names = driver.execute_async_script("var done = arguments[0]; caches.keys().then(done);")
        self.assertEqual(sorted(names), sorted([LISTINGS, "tvguide-files-" + copy["assets"]]))
        kept = driver.execute_async_script("""var done = arguments[1];
            caches.open(arguments[0]).then(function (c) { return c.keys(); })
              .then(function (keys) { done(keys.map(function (k) { var u = new URL(k.url); return u.pathname + u.search; })); });""", LISTINGS)
        self.assertEqual(sorted(kept), sorted(["/offline/listings", "/now", "/offline"] + [day["page"] for day in copy["days"]]))
        self.assertFalse(any("Remind me" in panel for panel in copy["panels"].values()))
        online_now = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".now-list li .current .title")][:10]
        self.assertGreater(len(online_now), 5)

        self.network(offline=True)
        # The grid: the day's page and its rows, drawn from the copy, under the banner.
        driver.get("about:blank")
        driver.get(self.server.url("/?day=%s&zoom=180" % DAY))
        WebDriverWait(driver, 20).until(lambda d: d.execute_script(
            "return document.querySelectorAll('#rows .row:not(.loading) .p').length > 50"))
        self.assertRegex(self.banner(), r"^Offline - listings as of 20:3\d$")
        rows = driver.execute_script("return document.querySelectorAll('#rows .row').length")
        self.assertGreater(rows, 5)
        first_row = driver.execute_script(
            "return Array.from(document.querySelectorAll('#rows .row[data-index=\"0\"] .p .t')).map(function (t) { return t.textContent; })")
        self.assertEqual(first_row, [cell["title"] for cell in cells(copy["days"][0]["rows"][0])])
        # A programme's details open over the grid from the copy.
        title = driver.execute_script("""
            var cell = document.querySelectorAll('#rows .p')[3]; cell.click(); return cell.querySelector('.t').textContent;""")
        WebDriverWait(driver, 10).until(lambda d: not d.find_element(By.ID, "panel").get_attribute("hidden"))
        self.assertEqual(driver.find_element(By.CSS_SELECTOR, "#panel h2").text, title)
        self.assertIn("Other airings", driver.find_element(By.ID, "panel").text)
        os.makedirs(SHOTS, exist_ok=True)
        driver.save_screenshot(os.path.join(SHOTS, "offline-grid.png"))
        # The now page: every kept channel with what is on by the server's clock, from the copy.
        driver.get(self.server.url("/now"))
        WebDriverWait(driver, 20).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".now-list li")) == 60)
        self.assertRegex(self.banner(), r"^Offline - listings as of 20:3\d$")
        self.assertEqual([e.text for e in driver.find_elements(By.CSS_SELECTOR, ".now-list li .current .title")][:10], online_now)
        # A programme's own page: its panel inside the offline page.
        programme = cells(copy["days"][0]["rows"][1])[-1]
        driver.get(self.server.url("/programmes/%d" % programme["id"]))
        self.assertEqual(driver.find_element(By.CSS_SELECTOR, "main h2").text, programme["title"])
        self.assertTrue(self.banner())
        # What is not kept says so, instead of the browser's error page.
        driver.get(self.server.url("/search?q=news"))
        self.assertEqual(driver.find_element(By.CSS_SELECTOR, "main h1").text, "This page needs the network")

        # The listings change while the network is gone; when it comes back the worker fetches the new copy at once,
        # without a page being opened.
        day = copy["days"][2]
        row = next(r for r in day["rows"] if cells(r) and cells(r)[-1]["end"] + 3600 <= day["end"] - day["start"])
        begins = day["start"] + cells(row)[-1]["end"]

        def stamp(seconds):
            return time.strftime("%Y%m%d%H%M%S +0000", time.gmtime(seconds))
        late = os.path.join(self.server.folder, "late.xml")
        with open(late, "w") as file:
            file.write('<tv><programme start="%s" stop="%s" channel="%s"><title>Breaking Late News</title></programme></tv>'
                       % (stamp(begins), stamp(begins + 3600), row["id"]))
        subprocess.run([BINARY, "import", "--database", self.server.database, late], check=True, capture_output=True,
                       env=self.server.environment)
        # Another process imported it: the server reads it once it has loaded the new listings (PostgreSQL's schedule
        # loads in the background, the old one answering meanwhile), as it would for any other visitor.
        query = "/api/guide?channels=%s&from=%s&to=%s" % (urllib.parse.quote(row["id"]), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(begins)),
                                                         time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(begins + 3600)))
        WebDriverWait(driver, 30, poll_frequency=0.5).until(
            lambda d: b"Breaking Late News" in urllib.request.urlopen(self.server.url(query)).read())
        driver.get(self.server.url("/now"))
        self.network(offline=False)

        def fresh(d):
            titles = d.execute_async_script("""var index = arguments[1], done = arguments[2];
                caches.open(arguments[0]).then((c) => c.match('/offline/listings')).then((r) => r.json())
                  .then((copy) => done(copy.days[2].rows[index].html), () => done(""));""",
                LISTINGS, row["index"])
            return ">Breaking Late News<" in titles
        WebDriverWait(driver, 30, poll_frequency=0.5).until(fresh)
        driver.get(self.server.url("/now"))
        self.assertEqual(self.banner(), "")

    def test_signing_in_brings_a_copy_of_the_profiles_own_and_a_phone_glance(self):
        driver = self.driver
        driver.get(self.server.url("/now"))
        self.wait_for_copy()
        self.sign_in_admin()
        driver.get(self.server.url("/now"))
        copy = self.wait_for_copy(viewer="Ada")
        self.assertEqual(copy["viewer"], "Ada")
        # A profile's panels offer "Remind me" (for when the network is back); a guest's offered none.
        self.assertTrue(any("Remind me" in panel for panel in copy["panels"].values()))
        # The glance: on a phone the now page's titles are large, one column.
        driver.set_window_size(412, 915)
        driver.get(self.server.url("/now"))
        size = driver.execute_script(
            "return parseFloat(getComputedStyle(document.querySelector('.now-list .current .title')).fontSize)")
        self.assertGreaterEqual(size, 20)
        driver.save_screenshot(os.path.join(SHOTS, "now-phone.png"))
        driver.set_window_size(1280, 900)


class SignOutTests(OwnServer, Forms, unittest.TestCase):
    """Signing out clears the device: the profile's copy is gone even when the server refuses the guest's copy that
    would have replaced it (12 copies from one address in 10 minutes, then 429)."""

    wait_for_copy = OfflineTests.wait_for_copy

    def test_signing_out_deletes_the_profiles_copy_whatever_the_server_answers(self):
        driver = self.driver
        self.sign_in_admin()
        driver.get(self.server.url("/now"))
        self.assertEqual(self.wait_for_copy(viewer="Ada")["viewer"], "Ada")
        # Every guest copy from this address is refused from now on.
        refused = 0
        for _ in range(16):
            try:
                urllib.request.urlopen(self.server.url("/offline/listings"), timeout=60).read()
            except urllib.error.HTTPError as error:
                refused += error.code == 429
        self.assertGreater(refused, 0)
        self.submit(driver.find_element(By.CSS_SELECTOR, 'form[action="/signout"] button'))
        WebDriverWait(driver, 30).until(lambda d: d.execute_script("return document.body.dataset.viewer === ''"))

        def forgotten(d):
            return d.execute_async_script("""
                var name = arguments[0], done = arguments[1];
                caches.open(name).then((cache) => cache.keys())
                  .then((keys) => done(keys.length === 0), () => done(false));""", LISTINGS)
        WebDriverWait(driver, 30, poll_frequency=0.5).until(forgotten, "the profile's copy and its pages stay on the device")


class PushSubscriptionTests(OwnServer, Forms, unittest.TestCase):
    """"Notify this browser" subscribes through the page's script and the service worker and adds the channel; its
    test is encrypted for the subscription's keys and decrypted by an independent implementation (PyPI http-ece).
    Chromium's push service is Google's, out of reach here: the page's PushManager is given the loopback receiver's
    subscription instead, and the test checks the server's VAPID key was the one asked for."""

    @classmethod
    def setUpClass(cls):
        python = os.environ.get("TVGUIDE_TEST_PUSH_PYTHON", os.path.join(ROOT, ".build", "fuzz-venv", "bin", "python"))
        cls.folder = tempfile.mkdtemp(prefix="tvguide-push-")
        cls.receiver = subprocess.Popen([python, os.path.join(ROOT, "Tests", "Peers", "push_receiver.py"), cls.folder],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        cls.keys = json.loads(cls.receiver.stdout.readline())
        super().setUpClass()

    @classmethod
    def serve_options(cls):
        # The receiver is on loopback, over https with a certificate of its own: the admin allows and trusts it.
        return ["--allowed-hosts", "loopback", "--outbound-ca", os.path.join(cls.folder, "push-ca.pem")]

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        cls.receiver.stdin.close()
        cls.receiver.wait(timeout=20)
        shutil.rmtree(cls.folder, ignore_errors=True)

    def test_notify_this_browser_then_a_test_arrives_decrypted(self):
        driver = self.driver
        self.sign_in_admin()
        driver.get(self.server.url("/reminders"))
        WebDriverWait(driver, 30).until(lambda d: d.execute_script("return !!navigator.serviceWorker.controller"))
        driver.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["notifications"], "origin": self.server.url("")})
        endpoint = "https://127.0.0.1:%d/push/browser-1" % self.keys["port"]
        driver.execute_script("""
            var json = { endpoint: arguments[0], keys: { p256dh: arguments[1], auth: arguments[2] } };
            var subscription = { toJSON: function () { return json; } };
            PushManager.prototype.getSubscription = function () { return Promise.resolve(null); };
            PushManager.prototype.subscribe = function (options) {
              sessionStorage.setItem("askedKey", btoa(String.fromCharCode.apply(null, new Uint8Array(options.applicationServerKey))));
              sessionStorage.setItem("askedVisible", String(options.userVisibleOnly));
              return Promise.resolve(subscription);
            };""", endpoint, self.keys["p256dh"], self.keys["auth"])
        button = driver.find_element(By.CSS_SELECTOR, "#push-subscribe button")
        self.assertTrue(button.is_displayed())
        self.submit(button)
        self.assertIn("Added This browser", driver.find_element(By.CSS_SELECTOR, ".notice").text)
        with urllib.request.urlopen(self.server.url("/api/push-key")) as answer:
            key = json.load(answer)["publicKey"]
        # The browser was asked for a subscription to the server's VAPID key, for messages it shows.
        asked = driver.execute_script("return [sessionStorage.getItem('askedKey'), sessionStorage.getItem('askedVisible')]")
        self.assertEqual(base64.b64decode(asked[0]), base64.urlsafe_b64decode(key + "=" * (-len(key) % 4)))
        self.assertEqual(asked[1], "true")
        channels = driver.find_elements(By.CSS_SELECTOR, ".delivery-channel")
        self.assertEqual(len(channels), 1)
        self.assertIn("(webpush)", channels[0].text)
        self.submit(channels[0].find_element(By.CSS_SELECTOR, "form[action$='/test'] button"))
        self.assertIn("Test sent to This browser", driver.find_element(By.CSS_SELECTOR, ".notice").text)
        received = sorted(f for f in os.listdir(self.folder) if f.endswith(".json"))
        self.assertEqual(len(received), 1)
        with open(os.path.join(self.folder, received[0])) as file:
            record = json.load(file)
        self.assertEqual(record["path"], "/push/browser-1")
        self.assertTrue(record["vapidValid"])
        self.assertEqual(record["k"], key)
        self.assertEqual(json.loads(record["payload"])["title"], "tvguide test")
        # Subscribing the same browser again adds no second channel.
        driver.get(self.server.url("/reminders"))
        driver.execute_script("""
            var subscription = { endpoint: arguments[0], keys: { p256dh: arguments[1], auth: arguments[2] } };
            PushManager.prototype.getSubscription = function () {
              return Promise.resolve({ toJSON: function () { return subscription; } });
            };""", endpoint, self.keys["p256dh"], self.keys["auth"])
        self.submit(driver.find_element(By.CSS_SELECTOR, "#push-subscribe button"))
        self.assertEqual(len(driver.find_elements(By.CSS_SELECTOR, ".delivery-channel")), 1, self.live_text(".push-status"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
