#!/usr/bin/python3
"""The guide beside an IPTV player, in a real browser (Debian's chromium, driven by selenium): genre filters on the
now page and the grid (rows the script draws too), and an M3U playlist source giving channels their numbers and a
"Watch" link to their streams.

A real `tvguide serve` on the bundled sample listings, its clock at 2026-02-15 20:30 UTC, the browser in UTC; the
playlist is added and refreshed with the CLI on the same database, as an admin would.
Run by scripts/test after test_offline.py: /usr/bin/python3 Tests/Browser/test_living_room.py
"""
import json
import os
import subprocess
import unittest
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from test_guide import DAY, Forms, browser
from tvguide_server import BINARY, Server


class LivingRoomTests(Forms, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server()
        cls.driver = browser(1280, 900)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()

    def test_films_only_is_one_tap_and_the_grid_dims_the_rest(self):
        driver = self.driver
        driver.get(self.server.url("/now"))
        everything = len(driver.find_elements(By.CSS_SELECTOR, ".now-list li"))
        driver.find_element(By.CSS_SELECTOR, ".genre-filter a[href='/now?genre=film']").click()
        WebDriverWait(driver, 10).until(lambda d: "genre=film" in d.current_url)
        self.assertEqual(driver.find_element(By.CSS_SELECTOR, ".genre-filter .chip.current").text, "Film")
        films = driver.find_elements(By.CSS_SELECTOR, ".now-list li")
        self.assertTrue(0 < len(films) < everything, (len(films), everything))
        # Each channel left has a film on now, as its details say.
        first = driver.find_element(By.CSS_SELECTOR, ".now-list li .current a.title").get_attribute("href")
        with urllib.request.urlopen(self.server.url("/api/programmes/" + first.rsplit("/", 1)[1])) as answer:
            categories = " ".join(json.load(answer).get("categories", [])).lower()
        self.assertTrue(any(word in categories for word in ("film", "movie", "cinema")), categories)
        # The grid: other genres dimmed, in the rows the server drew and in those the script fetches while scrolling.
        driver.get(self.server.url("/?day=%s&zoom=180&genre=film" % DAY))
        WebDriverWait(driver, 20).until(lambda d: d.execute_script("return document.querySelectorAll('#rows .row:not(.loading) .p').length > 50"))
        driver.execute_script("document.getElementById('grid-scroll').scrollTop = 4000")
        WebDriverWait(driver, 20).until(lambda d: d.execute_script(
            "return Array.from(document.querySelectorAll('#rows .row')).some(function (r) { return Number(r.dataset.index) > 70; })"))
        cells = driver.execute_script("""
            return Array.from(document.querySelectorAll('#rows .p')).map(function (c) {
              return [c.classList.contains('g-film'), c.classList.contains('dim'), Number(c.closest('.row').dataset.index)]; });""")
        self.assertTrue(any(index > 60 for _, _, index in cells))
        self.assertTrue(all(film != dimmed for film, dimmed, _ in cells))
        self.assertTrue(any(film for film, _, _ in cells))

    def test_a_playlist_numbers_the_channels_and_watch_opens_the_stream(self):
        driver = self.driver
        # The now page's first channel, as the API names it.
        driver.get(self.server.url("/now"))
        name = driver.find_element(By.CSS_SELECTOR, ".now-list li .name").text
        with urllib.request.urlopen(self.server.url("/api/channels")) as answer:
            first = next(c for c in json.load(answer) if c["name"] == name)
        playlist = os.path.join(self.server.folder, "iptv.m3u")
        with open(playlist, "w") as file:
            file.write('#EXTM3U\n#EXTINF:-1 tvg-id="%s" tvg-chno="101" group-title="Living room",%s HD \u24bc\n'
                       'https://streams.example/first.m3u8\n' % (first["id"], first["name"]))
        for command in (["sources", "add", "iptv", playlist, "--format", "m3u"], ["refresh", "iptv"]):
            subprocess.run([BINARY] + command + ["--database", self.server.database], check=True, capture_output=True)
        with urllib.request.urlopen(self.server.url("/api/channels")) as answer:
            described = next(c for c in json.load(answer) if c["id"] == first["id"])
        self.assertEqual((described["number"], described["groups"], described["stream"]),
                         ("101", ["Living room"], "https://streams.example/first.m3u8"))
        driver.get(self.server.url("/now"))
        row = next(li for li in driver.find_elements(By.CSS_SELECTOR, ".now-list li")
                   if li.find_element(By.CSS_SELECTOR, ".name").text == first["name"])
        self.assertEqual(row.find_element(By.CSS_SELECTOR, ".num").text, "101")
        watch = row.find_element(By.CSS_SELECTOR, "a.watch")
        self.assertEqual((watch.text, watch.get_attribute("href")), ("Watch", "https://streams.example/first.m3u8"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
