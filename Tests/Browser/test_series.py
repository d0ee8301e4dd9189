#!/usr/bin/python3
"""Following a show in a real browser (Debian's chromium, driven by selenium): a real `tvguide serve` on listings
written for this test (Tests/Browser/under-the-dome.xml), with TVmaze replayed from its recorded answers by the
`tvmaze-replay` test server, and the server's clock set to 2013-06-24 20:00 UTC, six hours before Under the Dome's
pilot.

Run by scripts/test after test_guide.py: /usr/bin/python3 Tests/Browser/test_series.py
"""
import os
import re
import subprocess
import unittest
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from browser_support import SHOTS, Forms, assert_accessible, browser
from tvguide_server import ROOT, Server, helper

REPLAY = helper("tvmaze-replay")
NOW = "2013-06-24T20:00:00Z"


class SeriesServer(Server):
    """The replay server, then `tvguide import` of the test listings, then `tvguide serve` pointed at the replay."""

    def __init__(self):
        self.replay = subprocess.Popen([REPLAY, "0"], stdout=subprocess.PIPE, text=True)
        line = self.replay.stdout.readline()
        self.replay_port = int(re.search(r"listening on (\d+)", line).group(1))
        super().__init__(["--tvmaze-url", "http://127.0.0.1:%d" % self.replay_port],
                         listings=os.path.join(ROOT, "Tests", "Browser", "under-the-dome.xml"), now=NOW)

    def stop(self):
        super().stop()
        self.replay.terminate()
        self.replay.wait(timeout=20)


class SeriesTests(Forms, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = SeriesServer()
        cls.driver = browser(1280, 900)
        # The admin, created with the setup code.
        cls.driver.get(cls.server.url("/setup"))
        for name, value in {"code": cls.server.setup_code, "name": "Ada", "secret": "correct horse"}.items():
            cls.driver.find_element(By.NAME, name).send_keys(value)
        cls.driver.find_element(By.CSS_SELECTOR, "form.stacked button[type=submit]").click()
        WebDriverWait(cls.driver, 15).until(lambda d: d.current_url.endswith("/admin"))

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()

    @staticmethod
    def text(element):
        """An element's text on one line (list items lay out as flex boxes, which selenium reads as lines)."""
        return " ".join(element.text.split())

    def grid_marks(self):
        """The grid's cells for 24 June once the script has drawn them: (title, followed) pairs."""
        driver = self.driver
        driver.get("about:blank")
        driver.get(self.server.url("/?day=2013-06-24&zoom=360"))
        WebDriverWait(driver, 20).until(lambda d: d.execute_script(
            "return document.querySelector('#rows.virtual') !== null && document.querySelectorAll('#rows .row:not(.loading)').length >= 2"))
        return driver.execute_script("""
            return Array.from(document.querySelectorAll('#rows .p')).map(function (cell) {
              return [cell.querySelector('.t').textContent, cell.classList.contains('followed')];
            });""")

    def test_1_search_follow_upcoming_grid_episode_guest_star_back_unfollow(self):
        driver = self.driver
        # Search a show and follow it.
        self.submit(driver.find_element(By.LINK_TEXT, "Shows"))
        driver.find_element(By.ID, "show-q").send_keys("under the dome")
        self.submit(driver.find_element(By.CSS_SELECTOR, ".search-form button[type=submit]"))
        card = driver.find_element(By.CSS_SELECTOR, ".show-card")
        self.assertIn("Under the Dome (2013)", card.text)
        self.submit(card.find_element(By.CSS_SELECTOR, "form[action='/shows/1/follow'] button"))
        self.assertTrue(driver.current_url.endswith("/shows/1"))
        self.assertIn("Following", driver.find_element(By.CSS_SELECTOR, ".series-head").text)
        self.assertIn("TVmaze", driver.find_element(By.CSS_SELECTOR, ".credit").text)

        # Upcoming: the pilot, when it airs for this viewer (UTC), and where it is in the listings.
        self.submit(driver.find_element(By.PARTIAL_LINK_TEXT, "Upcoming"))
        show = driver.find_element(By.CSS_SELECTOR, ".upcoming-show[data-show='1']")
        self.assertIn("S01E01 Pilot", show.text)
        # As the browser's locale (en-GB) writes the date.
        self.assertIn("Tue, 25 Jun 2013, 02:00", show.find_element(By.CSS_SELECTOR, ".when").text)
        self.assertIn("on CBS", show.find_element(By.CSS_SELECTOR, ".listings").text)
        self.assertIn("this episode", show.find_element(By.CSS_SELECTOR, ".listings").text)
        os.makedirs(SHOTS, exist_ok=True)
        driver.save_screenshot(os.path.join(SHOTS, "upcoming.png"))

        # The grid marks its airings, and nothing else.
        marks = self.grid_marks()
        self.assertIn(["Under the Dome", True], marks)
        self.assertTrue(all(followed == (title == "Under the Dome") for title, followed in marks), marks)

        # The episode, its guest star, and back to the show.
        driver.get(self.server.url("/upcoming"))
        self.submit(driver.find_element(By.LINK_TEXT, "S01E01 Pilot"))
        self.assertEqual("S01E01 Pilot", driver.find_element(By.TAG_NAME, "h1").text)
        guests = driver.find_element(By.CSS_SELECTOR, ".guests")
        self.assertIn("Rachelle Lefevre as Julia Shumway", self.text(guests))
        self.assertIn("Director Jack Bender", self.text(driver.find_element(By.CSS_SELECTOR, ".crew")))
        self.submit(guests.find_element(By.LINK_TEXT, "Rachelle Lefevre"))
        self.assertEqual("Rachelle Lefevre", driver.find_element(By.TAG_NAME, "h1").text)
        self.assertIn("Under the Dome (2013–2015) as Julia Shumway", self.text(driver.find_element(By.CSS_SELECTOR, ".credits")))
        self.assertIn("Born Thu, 1 Feb 1979", self.text(driver.find_element(By.CSS_SELECTOR, ".facts")))
        self.assertIn("Under the Dome S01E01 Pilot as Julia Shumway", self.text(driver.find_element(By.CSS_SELECTOR, ".guest-roles")))
        self.submit(driver.find_element(By.CSS_SELECTOR, ".credits").find_element(By.LINK_TEXT, "Under the Dome"))
        self.assertTrue(driver.current_url.endswith("/shows/1"))

        # Unfollow: gone from upcoming and from the grid's marks.
        self.submit(driver.find_element(By.CSS_SELECTOR, "form[action='/shows/1/unfollow'] button"))
        self.assertTrue(driver.find_elements(By.CSS_SELECTOR, "form[action='/shows/1/follow']"))
        driver.get(self.server.url("/upcoming"))
        self.assertIn("You follow no shows yet", driver.find_element(By.TAG_NAME, "main").text)
        self.assertFalse(any(followed for _, followed in self.grid_marks()))

    def test_3_pages_fit_a_phone(self):
        phone = browser(390, 844)
        try:
            for path in ("/shows/1", "/episodes/1", "/people/2", "/shows/1/seasons/1", "/shows?q=under+the+dome"):
                phone.get(self.server.url(path))
                self.assertTrue(phone.find_element(By.CSS_SELECTOR, ".credit").is_displayed(), path)
                overflow = phone.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
                self.assertLessEqual(overflow, 0, path)
        finally:
            phone.quit()

    def test_2_calendar_feed_parses_and_alarms_at_the_lead_time(self):
        import icalendar
        driver = self.driver
        driver.get(self.server.url("/shows/1"))
        follow = driver.find_elements(By.CSS_SELECTOR, "form[action='/shows/1/follow'] button")
        if follow:
            self.submit(follow[0])
        driver.get(self.server.url("/settings"))
        lead = driver.find_element(By.ID, "lead")
        lead.clear()
        lead.send_keys("20")
        self.submit(driver.find_element(By.CSS_SELECTOR, "form[action='/settings/series'] button"))
        self.submit(driver.find_element(By.CSS_SELECTOR, "form[action='/settings/calendar'] button[value=new]"))
        address = driver.find_element(By.CSS_SELECTOR, ".feed-url").get_attribute("value")
        with urllib.request.urlopen(address) as response:
            self.assertEqual("text/calendar; charset=utf-8", response.headers["Content-Type"])
            calendar = icalendar.Calendar.from_ical(response.read())
        pilot = [event for event in calendar.walk("VEVENT") if str(event["UID"]) == "tvmaze-episode-1@tvguide"][0]
        start = pilot.decoded("DTSTART")
        alarm = pilot.walk("VALARM")[0]
        self.assertEqual("2013-06-25T02:00:00+00:00", start.isoformat())
        self.assertEqual("2013-06-25T01:40:00+00:00", (start + alarm.decoded("TRIGGER")).isoformat())
        self.assertEqual("Under the Dome S01E01 Pilot", str(pilot["SUMMARY"]))

    def test_4_mark_watched_from_the_grids_details_then_hide_it(self):
        driver = self.driver
        driver.get(self.server.url("/shows/1"))
        follow = driver.find_elements(By.CSS_SELECTOR, "form[action='/shows/1/follow'] button")
        if follow:
            self.submit(follow[0])
        # The grid's details of the pilot's airing: a followed show's numbered episode, not watched yet.
        self.grid_marks()
        cell = [c for c in driver.find_elements(By.CSS_SELECTOR, "#rows .p") if c.find_element(By.CSS_SELECTOR, ".t").text == "Under the Dome"][0]
        cell.click()
        panel = WebDriverWait(driver, 15).until(lambda d: d.find_element(By.CSS_SELECTOR, ".details .watched-state"))
        self.assertIn("S01E01 of a show you follow: not watched yet.", self.text(panel))
        self.submit(panel.find_element(By.XPATH, ".//button[normalize-space()='Mark watched']"))
        self.assertIn("/programmes/", driver.current_url)
        self.assertIn("S01E01: Watched", self.text(driver.find_element(By.CSS_SELECTOR, ".watched-state")))
        # Up next has the show; the episode page says it was watched.
        driver.get(self.server.url("/up-next"))
        self.assertIn("Under the Dome", self.text(driver.find_element(By.CSS_SELECTOR, ".upcoming-show[data-show='1']")))
        driver.get(self.server.url("/episodes/1"))
        self.assertIn("Watched", self.text(driver.find_element(By.ID, "watched-state")))
        # "Hide what I have seen": both airings of the pilot leave the grid the script draws; the rest stays.
        driver.get(self.server.url("/?day=2013-06-24&zoom=360"))
        self.submit(driver.find_element(By.LINK_TEXT, "Hide what I have seen"))
        WebDriverWait(driver, 20).until(lambda d: d.execute_script(
            "return document.querySelector('#rows.virtual') !== null && document.querySelectorAll('#rows .row:not(.loading)').length >= 2"))
        titles = driver.execute_script("return Array.from(document.querySelectorAll('#rows .p .t')).map(function (t) { return t.textContent; });")
        self.assertNotIn("Under the Dome", titles)
        self.assertIn("Evening News", titles)
        # Back to every airing once it is unmarked.
        driver.get(self.server.url("/episodes/1"))
        self.submit(driver.find_element(By.XPATH, "//button[normalize-space()='Mark not watched']"))
        self.assertIn("Under the Dome", [title for title, _ in self.grid_marks()])

    def test_5_import_a_tv_time_export_then_up_next(self):
        import tempfile
        import zipfile
        driver = self.driver
        folder = os.path.join(ROOT, "Tests", "Browser", "tvtime-export")
        with tempfile.TemporaryDirectory() as scratch:
            export = os.path.join(scratch, "tvtime-export.zip")
            with zipfile.ZipFile(export, "w", zipfile.ZIP_DEFLATED) as archive:
                for name in ("tvtime-series-episodes.csv", "tvtime-series.csv"):
                    archive.write(os.path.join(folder, name), "tvtime-export/" + name)
            driver.get(self.server.url("/up-next"))
            self.submit(driver.find_element(By.PARTIAL_LINK_TEXT, "Your history"))
            driver.find_element(By.ID, "history-files").send_keys(export)
            self.submit(driver.find_element(By.CSS_SELECTOR, "#history-upload button[type=submit]"))
        # Matched in the background, the import's page reloading itself, then the preview: the show found by its TVDB
        # id, three episodes; nothing kept until confirmed.
        summary = WebDriverWait(driver, 30).until(EC.presence_of_element_located((By.ID, "import-summary")))
        self.assertIn("TV Time export: 1 show, 3 episodes found on TVmaze", self.text(summary))
        self.assertIn("by TVDB 264492", self.text(driver.find_element(By.ID, "import-matched")))
        self.submit(driver.find_element(By.CSS_SELECTOR, "#import-confirm button[type=submit]"))
        report = WebDriverWait(driver, 30).until(EC.presence_of_element_located((By.ID, "import-report")))
        self.assertIn("Imported: 3 episodes marked watched", self.text(report))
        # Up next has the show; its season page marks the three.
        self.submit(driver.find_element(By.LINK_TEXT, "Up next"))
        self.assertIn("Under the Dome", self.text(driver.find_element(By.CSS_SELECTOR, ".upcoming-show[data-show='1']")))
        driver.get(self.server.url("/shows/1/seasons/1"))
        self.assertEqual(3, len(driver.find_elements(By.CSS_SELECTOR, ".episodes li.watched")))

    def test_6_series_pages_pass_axe_core_at_both_widths_in_both_themes(self):
        pages = [(self.server.url(path), ".credit") for path in
                 ("/shows/1", "/shows/1/seasons/1", "/episodes/1", "/people/2", "/shows?q=under+the+dome")]
        signed_in = [(self.server.url(path), None) for path in ("/up-next", "/history", "/upcoming", "/calendar")]
        assert_accessible(self, self.driver, pages + signed_in, "laptop")
        phone = browser(390, 844)
        self.addCleanup(phone.quit)
        assert_accessible(self, phone, pages, "phone")


if __name__ == "__main__":
    unittest.main(verbosity=2)
