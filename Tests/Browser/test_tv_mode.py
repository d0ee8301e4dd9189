#!/usr/bin/python3
"""The guide from the sofa: TV mode in a real browser (Debian's chromium, driven by selenium) at 1920 x 1080, with the
keyboard alone as a remote sends it (arrows, OK as Enter, Back as Escape, LG webOS's key 461 and Samsung Tizen's 10009).

A real `tvguide serve`, its clock at 2026-02-15 20:30 UTC, on a lineup as large IPTV lineups are: the bundled sample
listings' 161 channels with programmes (real, see Sources/GuideServer/Resources/PROVENANCE.md) and six timeshift copies
of each (+1 to +6 hours, as "+1" channels are), 1,127 channels in all. A playlist gives the first channel a stream,
served on loopback, so OK twice watches it.
Run by scripts/test after test_media_servers.py: /usr/bin/python3 Tests/Browser/test_tv_mode.py
"""
import datetime
import gzip
import http.server
import json
import os
import re
import subprocess
import unittest
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from browser_support import DAY, LoopbackServer, browser
from tvguide_server import BINARY, ROOT, Server

# A television's browser, as LG's webOS names itself.
WEBOS = ("Mozilla/5.0 (Web0S; Linux/SmartTV) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/87.0.4280.88 Safari/537.36 "
         "WebAppManager")


def timeshifted_lineup(folder, copies=6):
    """The sample listings with `copies` timeshift channels of each channel that has programmes: `ID.plusN`, named
    "NAME +N", its programmes N hours later. Written to `folder`; its path."""
    with gzip.open(os.path.join(ROOT, "Sources", "GuideServer", "Resources", "sample-listings.xml.gz"), "rt", encoding="utf-8") as file:
        text = file.read()
    body = text[text.index("<tv"):text.rindex("</tv>")]
    head, body = body[:body.index(">") + 1], body[body.index(">") + 1:]
    channels = {m.group(1): m.group(0) for m in re.finditer(r'<channel id="([^"]*)".*?</channel>', body, re.S)}
    programmes = re.findall(r"<programme .*?</programme>", body, re.S)
    listed = {re.search(r'channel="([^"]*)"', p).group(1) for p in programmes}

    def later(match, hours):
        moved = datetime.datetime.strptime(match.group(2), "%Y%m%d%H%M%S") + datetime.timedelta(hours=hours)
        return '%s="%s' % (match.group(1), moved.strftime("%Y%m%d%H%M%S"))
    parts = [text[:text.index("<tv")], head, body]
    for hours in range(1, copies + 1):
        for channel in listed & set(channels):
            element = channels[channel].replace('id="%s"' % channel, 'id="%s.plus%d"' % (channel, hours), 1)
            parts.append(re.sub(r"(<display-name[^>]*>)([^<]*)", lambda m: "%s%s +%d" % (m.group(1), m.group(2), hours), element, count=1))
        for programme in programmes:
            channel = re.search(r'channel="([^"]*)"', programme).group(1)
            if channel not in channels:
                continue
            moved = re.sub(r'(start|stop)="(\d{14})', lambda m: later(m, hours), programme)
            parts.append(moved.replace('channel="%s"' % channel, 'channel="%s.plus%d"' % (channel, hours), 1))
    parts.append("</tv>\n")
    path = os.path.join(folder, "timeshifted.xml")
    with open(path, "w", encoding="utf-8") as file:
        file.write("".join(parts))
    return path


class Stream(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"<!doctype html><title>The stream</title><p>playing</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *arguments):
        pass


class TVModeTests(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        import shutil
        import tempfile
        cls.folder = tempfile.mkdtemp(prefix="tvguide-tv-")
        cls.addClassCleanup(shutil.rmtree, cls.folder, ignore_errors=True)
        cls.server = Server(listings=timeshifted_lineup(cls.folder))
        cls.addClassCleanup(cls.server.stop)
        cls.stream = LoopbackServer(Stream, "/live/first.ts")
        cls.addClassCleanup(cls.stream.stop)
        with urllib.request.urlopen(cls.server.url("/api/now")) as answer:
            cls.first = next({"id": entry["channel"], "name": entry["name"]} for entry in json.load(answer) if entry.get("now"))
        playlist = os.path.join(cls.server.folder, "tv.m3u")
        with open(playlist, "w") as file:
            file.write('#EXTM3U\n#EXTINF:-1 tvg-id="%s",%s\n%s\n' % (cls.first["id"], cls.first["name"], cls.stream.url))
        for command in (["sources", "add", "iptv", playlist, "--format", "m3u"], ["refresh", "iptv"]):
            subprocess.run([BINARY] + command + ["--database", cls.server.database], check=True, capture_output=True,
                           env=cls.server.environment)
        cls.driver = browser(1920, 1080)
        cls.addClassCleanup(cls.driver.quit)

    def js(self, script, *arguments):
        return self.driver.execute_script(script, *arguments)

    def press(self, *keys):
        ActionChains(self.driver).send_keys(*keys).perform()

    def focused(self):
        """Where the focus is: the programme's row and id, or what else has it."""
        return self.js("""
            var a = document.activeElement;
            if (a && a.classList.contains('p') && a.closest('#rows')) return {row: Number(a.closest('.row').dataset.index), id: a.getAttribute('href')};
            return {other: a ? a.tagName + '.' + a.className : null};""")

    def settle(self):
        """Waits until the focus has stopped moving (rows fetched, the last press handled) and returns it."""
        previous = [None]

        def still(driver):
            # A move waiting for rows marks the grid busy: the focus has not moved yet, but will.
            if self.js("return document.getElementById('grid').getAttribute('aria-busy') === 'true'"):
                previous[0] = None
                return False
            now = self.focused()
            same = now == previous[0]
            previous[0] = now
            return same
        WebDriverWait(self.driver, 20, poll_frequency=0.1).until(still)
        return previous[0]

    def open_tv_grid(self):
        self.driver.get(self.server.url("/?tv=1&day=%s" % DAY))
        WebDriverWait(self.driver, 20).until(lambda d: d.execute_script(
            "return document.activeElement && document.activeElement.classList.contains('p')"))

    def test_a_televisions_browser_gets_it_and_tv_1_keeps_it(self):
        options = webdriver.ChromeOptions()
        for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-agent=" + WEBOS]:
            options.add_argument(argument)
        television = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        try:
            television.get(self.server.url("/now"))
            self.assertIn("tv", television.find_element(By.TAG_NAME, "html").get_attribute("class").split())
        finally:
            television.quit()
        laptop = browser(1280, 900)
        try:
            laptop.get(self.server.url("/now"))
            self.assertNotIn("tv", laptop.find_element(By.TAG_NAME, "html").get_attribute("class") or "")
            laptop.get(self.server.url("/now?tv=1"))
            laptop.get(self.server.url("/search?q=news"))
            self.assertIn("tv", laptop.find_element(By.TAG_NAME, "html").get_attribute("class").split())
            laptop.get(self.server.url("/now?tv=0"))
            self.assertNotIn("tv", laptop.find_element(By.TAG_NAME, "html").get_attribute("class") or "")
        finally:
            laptop.quit()

    def test_the_remote_alone_across_a_thousand_channels(self):
        self.open_tv_grid()
        start = self.focused()
        # Readable at three metres: titles of 24 px or more on a 1080-line screen, a ring of 5 px or more round the focus.
        size = self.js("return parseFloat(getComputedStyle(document.activeElement.querySelector('.t')).fontSize)")
        ring = self.js("return parseFloat(getComputedStyle(document.activeElement).outlineWidth)")
        self.assertGreaterEqual(size, 24)
        self.assertGreaterEqual(ring, 5)
        # Down a screen at a time past the thousandth channel: after every press the focus is on a programme.
        row = start["row"]
        presses = 0
        while row < 1000:
            self.press(Keys.PAGE_DOWN)
            presses += 1
            where = self.settle()
            self.assertIn("row", where, "focus lost after %d presses: %s" % (presses, where))
            self.assertGreater(where["row"], row)
            row = where["row"]
            self.assertLess(presses, 400)
        # A held key: twenty presses at once, each counted though rows are still being fetched.
        self.press(*([Keys.ARROW_DOWN] * 20))
        where = self.settle()
        self.assertGreaterEqual(where["row"], row + 20)
        self.assertLessEqual(self.js("return document.querySelectorAll('#rows .row').length"), 120)
        # Across the row, and OK for the details, which open on their first action; Back closes them.
        self.press(Keys.ARROW_RIGHT)
        where = self.settle()
        self.press(Keys.ENTER)
        WebDriverWait(self.driver, 10).until(lambda d: not d.find_element(By.ID, "panel").get_attribute("hidden"))
        WebDriverWait(self.driver, 10).until(lambda d: d.execute_script(
            "var panel = document.getElementById('panel');"
            " return panel.contains(document.activeElement) && document.activeElement === Grid.primaryAction(panel)"))
        self.press(Keys.ARROW_DOWN)
        self.assertTrue(self.js("return document.getElementById('panel').contains(document.activeElement)"))
        self.press(Keys.ESCAPE)
        WebDriverWait(self.driver, 10).until(lambda d: d.find_element(By.ID, "panel").get_attribute("hidden"))
        self.assertEqual(self.settle(), where)
        # The Back keys of LG's and Samsung's remotes do the same.
        for code in (461, 10009):
            self.press(Keys.ENTER)
            WebDriverWait(self.driver, 10).until(lambda d: not d.find_element(By.ID, "panel").get_attribute("hidden"))
            self.js("document.activeElement.dispatchEvent(new KeyboardEvent('keydown', {keyCode: %d, bubbles: true}))" % code)
            WebDriverWait(self.driver, 10).until(lambda d: d.find_element(By.ID, "panel").get_attribute("hidden"))
            self.assertEqual(self.settle(), where)
        # A click on nothing (the focus goes to the body) gives it back to the programme.
        self.js("document.activeElement.blur()")
        self.assertEqual(self.settle(), where)
        # Back to the top and up into the toolbar; down again to the grid.
        for _ in range(200):
            if self.focused().get("row") == 0:
                break
            self.press(Keys.PAGE_UP)
            self.settle()
        self.assertEqual(self.focused()["row"], 0)
        self.press(Keys.ARROW_UP)
        self.assertTrue(self.js("return document.activeElement.closest('.toolbar') !== null"))
        self.press(Keys.ARROW_DOWN)
        self.assertEqual(self.settle()["row"], 0)

    def test_ok_twice_watches(self):
        self.driver.get(self.server.url("/?tv=1&day=%s&channel=%s" % (DAY, urllib.request.quote(self.first["id"]))))
        WebDriverWait(self.driver, 20).until(lambda d: d.execute_script(
            "var a = document.activeElement; return a && a.classList.contains('p') && a.closest('.row').dataset.channel === arguments[0]",
            self.first["id"]))
        self.press(Keys.ENTER)
        WebDriverWait(self.driver, 10).until(lambda d: d.execute_script(
            "return document.activeElement.classList.contains('watch')"))
        self.press(Keys.ENTER)
        WebDriverWait(self.driver, 10).until(lambda d: d.current_url == self.stream.url)
        self.driver.back()
        WebDriverWait(self.driver, 10).until(lambda d: "tv=1" in d.current_url)


if __name__ == "__main__":
    unittest.main(verbosity=2)
