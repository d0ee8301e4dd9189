#!/usr/bin/python3
"""An admin's sources and a viewer's reminders in a real browser, each against a `tvguide serve` of its own: a source
added on the web and its download watched live, then its channels and health; Remind me from the grid, and a webhook
channel's test delivered to a receiver on loopback.

Run by scripts/test after test_guide.py: /usr/bin/python3 Tests/Browser/test_admin.py
"""
import os
import re
import time
import unittest

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from browser_support import DAY, NOW_EPOCH, SHOTS, Forms, LoopbackServer, OwnServer
from tvguide_server import ROOT


class DrippingFeed(LoopbackServer):
    """A real HTTP server on loopback serving the sample listings (gzip XMLTV, with Content-Length) slowly: 16 KB
    every 0.1 s, about 3 s in all, so a refresh's progress can be watched."""

    def __init__(self):
        import http.server
        with open(os.path.join(ROOT, "Sources", "GuideServer", "Resources", "sample-listings.xml.gz"), "rb") as file:
            body = file.read()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "application/gzip")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                for start in range(0, len(body), 16384):
                    self.wfile.write(body[start:start + 16384])
                    self.wfile.flush()
                    time.sleep(0.1)

            def log_message(self, *arguments):
                pass

        super().__init__(Handler, "/guide.xml.gz")


class SourceTests(OwnServer, Forms, unittest.TestCase):
    """An admin adds a source on the web and watches its download live (server-sent events), then its channels and
    health."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.feed = DrippingFeed()

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        cls.feed.stop()

    def test_add_a_source_and_watch_it_refresh(self):
        driver = self.driver
        self.sign_in_admin()
        driver.get(self.server.url("/admin/sources"))
        self.fill({"name": "drip", "format": "xmltv", "location": self.feed.url, "priority": "3"})
        self.submit(driver.find_element(By.CSS_SELECTOR, "form[action='/admin/sources'] button[type=submit]"))
        self.assertIn("Added drip; fetching its listings now", driver.find_element(By.ID, "sources-message").text)
        # The live view: the download's percentage of its known size moves while it runs ...
        seen = set()

        def downloading(d):
            for text in d.execute_script("""
                    return Array.from(document.querySelectorAll("#refresh-progress li[data-source=drip] .feed span"))
                        .map(function (span) { return span.textContent; });"""):
                match = re.search(r"(\d+)% of 0\.5 MB", text)
                if match:
                    seen.add(int(match.group(1)))
            return len([p for p in seen if 0 < p < 100]) >= 2
        WebDriverWait(driver, 20, poll_frequency=0.1).until(downloading)
        self.assertIn("Refreshing:", self.live_text("#refresh-progress .progress-summary"))
        os.makedirs(SHOTS, exist_ok=True)
        driver.save_screenshot(os.path.join(SHOTS, "sources-refreshing.png"))
        # ... until it is imported, and the sources table then tells the outcome without a reload.
        WebDriverWait(driver, 30).until(lambda d: d.find_elements(
            By.CSS_SELECTOR, "#refresh-progress li[data-source=drip][data-phase=imported]"))
        WebDriverWait(driver, 10).until(lambda d: re.search(
            r"\d+ programmes, 0\.5 MB", self.live_text("tr[data-source=drip]")))
        self.assertIn("Last refresh: 1 of 1 download done", self.live_text("#refresh-progress .progress-summary"))
        # Its channels: dropping all on the page is one click, and saving keeps the choice.
        driver.get(self.server.url("/admin/source?name=drip"))
        summary = re.match(r"^([\d,]+) channels offered, ([\d,]+) kept", driver.find_element(By.ID, "channel-summary").text)
        offered, kept = (int(number.replace(",", "")) for number in summary.groups())
        on_page = [box for box in driver.find_elements(By.CSS_SELECTOR, "input[name=keep]") if box.is_selected()]
        self.assertGreater(len(on_page), 0)
        driver.find_element(By.CSS_SELECTOR, "button[data-check=none]").click()
        self.assertFalse(any(box.is_selected() for box in driver.find_elements(By.CSS_SELECTOR, "input[name=keep]")))
        self.submit(driver.find_element(By.CSS_SELECTOR, "form.source-channels button.button[type=submit]"))
        self.assertIn("Saved", driver.find_element(By.ID, "source-message").text)
        self.assertIn("{:,} channels offered, {:,} kept".format(offered, kept - len(on_page)), driver.find_element(By.ID, "channel-summary").text)
        # Health lists the source and its last refresh.
        driver.get(self.server.url("/admin/health"))
        self.assertRegex(driver.find_element(By.CSS_SELECTOR, "#source-health tr[data-source=drip]").text, r"\d+ programmes")


class ReviewQueueTests(OwnServer, Forms, unittest.TestCase):
    """A playlist whose entries name their channels only by name, against the sample guide's 2,658 channels: what the
    matcher is sure of is mapped at the refresh; the rest waits in the review queue on the source's page, where the
    first suggestion has the focus and Enter accepts it."""

    PLAYLIST = "\n".join([
        "#EXTM3U",
        "#EXTINF:-1,Deutsche Welle", "https://streams.example/dw.m3u8",
        "#EXTINF:-1,Nick Jr", "https://streams.example/nickjr.m3u8",
        "#EXTINF:-1,HBO", "https://streams.example/hbo.m3u8",
        "#EXTINF:-1,Discovery", "https://streams.example/discovery.m3u8",
        "#EXTINF:-1,Crime", "https://streams.example/crime.m3u8",
        ""])

    def test_the_review_queue_by_keyboard(self):
        driver = self.driver
        path = os.path.join(self.server.folder, "iptv.m3u")
        with open(path, "w") as file:
            file.write(self.PLAYLIST)
        self.sign_in_admin()
        driver.get(self.server.url("/admin/sources"))
        self.fill({"name": "iptv", "format": "m3u", "location": path})
        self.submit(driver.find_element(By.CSS_SELECTOR, "form[action='/admin/sources'] button[type=submit]"))

        def summary(d):
            d.get(self.server.url("/admin/source?name=iptv"))
            text = d.find_element(By.ID, "channel-summary").text
            # The entries are kept first, then matched: wait for both.
            found = re.match(r"^5 channels offered, 5 kept; the matcher mapped (\d+), (\d+) wait for review", text)
            return found if found and int(found.group(1)) + int(found.group(2)) > 0 else None
        found = WebDriverWait(driver, 60, poll_frequency=0.5).until(summary)
        mapped, waiting = int(found.group(1)), int(found.group(2))
        self.assertGreaterEqual(mapped, 1, driver.find_element(By.ID, "channel-summary").text)
        self.assertGreaterEqual(waiting, 1)
        # The matcher's own mapping says how sure it was and why.
        self.assertRegex(driver.find_element(By.CSS_SELECTOR, "form.source-channels").text, r"matched, \d+% sure: ")

        driver.get(self.server.url("/admin/source?name=iptv&show=review"))
        rows = driver.find_elements(By.CSS_SELECTOR, "tr[data-channel]")
        self.assertEqual(len(rows), waiting)
        first = rows[0].get_attribute("data-channel")
        # Ranked suggestions, each with how sure and why; the first has the focus.
        suggestions = rows[0].find_elements(By.CSS_SELECTOR, "ol.match-candidates li")
        self.assertGreaterEqual(len(suggestions), 2)
        self.assertRegex(suggestions[0].text, r"^Map to .+ \(.+\) \d+% sure: ")
        focused = driver.switch_to.active_element
        self.assertEqual(focused.get_attribute("name"), "pick." + first)
        target = focused.get_attribute("value")
        os.makedirs(SHOTS, exist_ok=True)
        driver.save_screenshot(os.path.join(SHOTS, "channel-review.png"))
        # Enter accepts it: the page comes back without it, one fewer waiting.
        driver.execute_script("window.tvguideOldPage = true")
        focused.send_keys(Keys.ENTER)
        WebDriverWait(driver, 15).until(lambda d: d.execute_script("return !window.tvguideOldPage && document.readyState === 'complete'"))
        self.assertIn("Saved 1 channel.", driver.find_element(By.ID, "source-message").text)
        self.assertNotIn(first, [row.get_attribute("data-channel") for row in driver.find_elements(By.CSS_SELECTOR, "tr[data-channel]")])
        self.assertIn("wait for review", driver.find_element(By.ID, "channel-summary").text)
        self.assertIn("%d wait for review" % (waiting - 1), driver.find_element(By.ID, "channel-summary").text)
        # Where it went is a person's choice now, shown on the full list.
        driver.get(self.server.url("/admin/source?name=iptv&show=mapped"))
        row = driver.find_element(By.CSS_SELECTOR, "tr[data-channel='%s']" % first)
        self.assertEqual(row.find_element(By.CSS_SELECTOR, "input[name^='map.']").get_attribute("value"), target)
        self.assertIn("chosen by a person", row.text)


class WebhookReceiver(LoopbackServer):
    """A real HTTP server on loopback standing in for a webhook: it records every POST's headers and JSON body."""

    def __init__(self):
        import http.server
        import json
        received = self.received = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                received.append((dict(self.headers), json.loads(body)))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *arguments):
                pass

        super().__init__(Handler, "/hook")


class ReminderTests(OwnServer, Forms, unittest.TestCase):
    """Remind me on a programme in the grid; it appears on /reminders; a webhook channel's test arrives (the receiver
    on loopback, which the admin allows)."""

    @classmethod
    def serve_options(cls):
        return ["--allowed-hosts", "loopback"]

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.receiver = WebhookReceiver()

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        cls.receiver.stop()

    def test_remind_me_from_the_grid_then_a_test_delivery(self):
        driver = self.driver
        self.sign_in_admin()
        driver.get(self.server.url("/?day=%s&zoom=180" % DAY))
        WebDriverWait(driver, 20).until(lambda d: d.execute_script(
            "return document.querySelectorAll('#rows .row:not(.loading) .p').length > 5"))
        # A programme starting at least an hour after the server's now, opened as a viewer opens it.
        title = driver.execute_script("""
            var start = Number(document.getElementById('guide').dataset.dayStart), now = arguments[0];
            var cell = Array.from(document.querySelectorAll('#rows .p')).find(function (c) {
              return start + Number(c.dataset.start) > now + 3600; });
            cell.click();
            return cell.querySelector('.t').textContent;""", NOW_EPOCH)
        WebDriverWait(driver, 10).until(lambda d: not d.find_element(By.ID, "panel").get_attribute("hidden"))
        form = driver.find_element(By.CSS_SELECTOR, "#panel form.remind")
        form.find_element(By.CSS_SELECTOR, "option[value='30']").click()
        self.submit(form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        self.assertTrue(driver.current_url.startswith(self.server.url("/reminders")))
        self.assertIn("You will be reminded of " + title, driver.find_element(By.CSS_SELECTOR, ".notice").text)
        self.assertIn(title, driver.find_element(By.CSS_SELECTOR, ".reminder-list .reminder").text)
        self.assertIn("30 min before", driver.find_element(By.CSS_SELECTOR, ".reminder-list .reminder").text)
        # A webhook, then its test: it arrives at the receiver, signed, and the log says so.
        self.fill({"kind": "webhook", "name": "Home", "target": self.receiver.url, "secret": "key"})
        self.submit(driver.find_element(By.CSS_SELECTOR, "form[action='/reminders/channels'] button[type=submit]"))
        self.assertIn("Added Home.", driver.find_element(By.CSS_SELECTOR, ".notice").text)
        self.submit(driver.find_element(By.CSS_SELECTOR, ".delivery-channel form[action$='/test'] button"))
        self.assertIn("Test sent to Home.", driver.find_element(By.CSS_SELECTOR, ".notice").text)
        self.assertEqual(len(self.receiver.received), 1)
        headers, body = self.receiver.received[0]
        self.assertEqual(body["event"], "test")
        self.assertTrue(headers.get("X-Tvguide-Signature", "").startswith("sha256="))
        self.assertIn("Home: Test delivered", driver.find_element(By.CSS_SELECTOR, ".delivery-log").text)
        os.makedirs(SHOTS, exist_ok=True)
        driver.save_screenshot(os.path.join(SHOTS, "reminders.png"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
