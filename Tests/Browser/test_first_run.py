#!/usr/bin/python3
"""A newcomer's first screen, and a new admin's first source. From a clean database, serve imports the bundled sample
moved to the week its clock is in, and the first grid shows programmes, says they are the sample, and /now lists what
is on. Then a new admin goes from a guide with no sources to a Schedules Direct lineup in the grid, through the pages:
the admin page asks where the listings come from, the country picked offers Schedules Direct, its page signs in, the
account's lineup is added as a source and fetched, and its stations are in the grid. Schedules Direct is the
`sd-replay` stand-in (SD's recorded answers on loopback).

Run by scripts/test: /usr/bin/python3 Tests/Browser/test_first_run.py
"""
import os
import re
import subprocess
import unittest

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser_support import SHOTS, Forms, browser
from tvguide_server import NOW, Server, helper

SD_REPLAY = helper("sd-replay")


class FirstRunServer(Server):
    """The stand-in, its schedules from the day before the server's clock, then `tvguide serve` pointed at it."""

    def __init__(self):
        self.standin = subprocess.Popen([SD_REPLAY, "2026-02-14"], stdout=subprocess.PIPE, text=True)
        line = self.standin.stdout.readline()
        self.base = re.search(r"listening at (\S+)", line).group(1)
        super().__init__(["--schedules-direct-url", self.base])

    def stop(self):
        super().stop()
        self.standin.terminate()
        self.standin.wait(timeout=20)


class FirstRunTests(Forms, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = FirstRunServer()
        cls.driver = browser(1280, 900)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()

    def test_from_no_sources_to_a_schedules_direct_lineup_in_the_grid(self):
        driver = self.driver
        self.sign_in_admin()
        driver.get(self.server.url("/admin"))
        self.assertIn("Where do your listings come from?", driver.find_element(By.ID, "first-run").text)
        self.fill({"country": "US"})
        self.submit(driver.find_element(By.CSS_SELECTOR, "#first-run form button[type=submit]"))
        ways = driver.find_element(By.ID, "listings-ways").text
        self.assertIn("Schedules Direct $35 a year (a 7-day trial)", ways)
        self.submit(driver.find_element(By.LINK_TEXT, "Sign in to Schedules Direct"))
        self.fill({"username": "tvguide-test", "password": "correct horse"})
        self.submit(driver.find_element(By.CSS_SELECTOR, "#sd-signin button[type=submit]"))
        self.assertIn("Signed in to Schedules Direct as tvguide-test.", driver.find_element(By.ID, "sd-message").text)
        lineup = driver.find_element(By.CSS_SELECTOR, "#sd-lineups li[data-lineup='USA-IL57303-X']")
        self.assertIn("Comcast Waukegan/Lake Forest Area - Digital", lineup.text)
        self.submit(lineup.find_element(By.XPATH, ".//button[contains(., 'Add as a source')]"))
        self.assertIn("fetching its listings now", driver.find_element(By.ID, "sources-message").text)
        # The refresh ends (the sources table is fetched again when it does) with the lineup's programmes.
        WebDriverWait(driver, 60, poll_frequency=0.5).until(lambda d: re.search(
            r"\d+ programmes, [\d.]+ MB", self.live_text("tr[data-source='Comcast Waukegan/Lake Forest Area - Digital']")))
        # Its stations are the grid's, with their programmes: WHP (station 11523 of the lineup's map), found by its row.
        driver.get(self.server.url("/?channel=I11523.json.schedulesdirect.org"))
        row = "[data-channel='I11523.json.schedulesdirect.org']"
        WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, row + " a[role=gridcell]"))
        self.assertEqual(driver.find_element(By.CSS_SELECTOR, row + " .ch .name").text, "WHP")
        os.makedirs(SHOTS, exist_ok=True)
        driver.save_screenshot(os.path.join(SHOTS, "first-run-schedules-direct.png"))
        # The first-run question is gone now the guide has a source.
        driver.get(self.server.url("/admin"))
        self.assertFalse(driver.find_elements(By.ID, "first-run"))


class NewcomerTests(unittest.TestCase):
    """`tvguide serve` on a clean database whose clock is a Monday ten months after the sample's week (14-18 February
    2026): the first thing a newcomer sees."""

    NOW = "2026-12-07T20:30:00Z"

    @classmethod
    def setUpClass(cls):
        cls.server = Server(now=cls.NOW)
        cls.driver = browser(1280, 900)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()

    def test_the_first_grid_and_now_show_a_living_guide(self):
        driver = self.driver
        self.assertIn("importing the bundled sample listings (sample-listings.xml.gz), moved to this week", self.server.text())
        driver.get(self.server.url("/"))
        WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, "a[role=gridcell]"))
        self.assertIn("Sample listings, moved to this week", driver.find_element(By.CSS_SELECTOR, ".message[role=status]").text)
        self.assertIn("7", driver.find_element(By.TAG_NAME, "h1").text)
        # Programmes in the window as it opens (at now), not rows of empty hours.
        in_view = driver.execute_script("""
            return Array.from(document.querySelectorAll('a[role=gridcell]')).filter(cell => {
                const box = cell.getBoundingClientRect();
                return box.width > 0 && box.bottom > 0 && box.right > 0 && box.top < innerHeight && box.left < innerWidth;
            }).length""")
        self.assertGreater(in_view, 20)
        os.makedirs(SHOTS, exist_ok=True)
        driver.save_screenshot(os.path.join(SHOTS, "first-run-sample.png"))
        driver.get(self.server.url("/now"))
        titles = driver.find_elements(By.CSS_SELECTOR, ".slot.current a.title")
        nothing = driver.find_elements(By.CSS_SELECTOR, ".slot.current.none")
        self.assertGreater(len(titles), 20)
        self.assertGreater(len(titles), len(nothing))


if __name__ == "__main__":
    unittest.main(verbosity=2)
