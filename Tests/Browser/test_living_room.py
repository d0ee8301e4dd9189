#!/usr/bin/python3
"""The guide beside an IPTV player, in a real browser (Debian's chromium, driven by selenium): genre filters on the
now page and the grid (rows the script draws too), an M3U playlist source giving channels their numbers and a
"Watch" link to their streams, favourites and channel groups, logos from tvguide's cache, timeshift channels, and the light theme beside the dark
one (contrast checked in both by test_accessibility.py). The feed for Plex and Jellyfin: test_media_servers.py.

A real `tvguide serve` on the bundled sample listings, its clock at 2026-02-15 20:30 UTC, the browser in UTC; the
playlist is added and refreshed with the CLI on the same database, as an admin would.
Run by scripts/test after test_offline.py: /usr/bin/python3 Tests/Browser/test_living_room.py
"""
import json
import os
import subprocess
import unittest
import urllib.parse
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser_support import DAY, Forms, LoopbackServer, OwnServer, browser
from tvguide_server import BINARY


class LivingRoomTests(OwnServer, Forms, unittest.TestCase):

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
        read_cells = """
            return Array.from(document.querySelectorAll('#rows .p')).map(function (c) {
              return [c.classList.contains('g-film'), c.classList.contains('dim'), Number(c.closest('.row').dataset.index)]; });"""
        drawn = driver.execute_script(read_cells)
        # Scrolled far down, the script drops the rows it drew first and fetches the rows around the view; read them
        # once none is still loading.
        driver.execute_script("document.getElementById('grid-scroll').scrollTop = 4000")
        WebDriverWait(driver, 20).until(lambda d: d.execute_script(
            "var rows = Array.from(document.querySelectorAll('#rows .row'));"
            " return !rows.some(function (r) { return r.classList.contains('loading'); })"
            " && rows.some(function (r) { return Number(r.dataset.index) > 70 && r.querySelector('.p'); })"))
        fetched = driver.execute_script(read_cells)
        self.assertTrue(any(index > 60 for _, _, index in fetched))
        for cells in (drawn, fetched):
            self.assertTrue(any(film for film, _, _ in cells))
            self.assertTrue(all(film != dimmed for film, dimmed, _ in cells))

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
            subprocess.run([BINARY] + command + ["--database", self.server.database], check=True, capture_output=True,
                           env=self.server.environment)
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
        # The playlist's group is a chip: one tap shows its channels alone, on the now page and the grid.
        driver.find_element(By.LINK_TEXT, "Living room").click()
        WebDriverWait(driver, 10).until(lambda d: "group=Living" in d.current_url)
        self.assertEqual([e.text for e in driver.find_elements(By.CSS_SELECTOR, ".now-list li .name")], [first["name"]])
        driver.get(self.server.url("/?day=%s&zoom=180&group=Living%%20room" % DAY))
        WebDriverWait(driver, 20).until(lambda d: d.execute_script("return document.querySelectorAll('#rows .row').length === 1"))
        self.assertEqual(driver.find_element(By.CSS_SELECTOR, "#rows .row .name").text, first["name"])



class GroupsAndLogosTests(OwnServer, Forms, unittest.TestCase):
    """Favourites by one click, a group made by hand, the group guests see, the group a profile chose last, and logos
    from tvguide's own cache (a loopback host serving the logo, asked once: the admin allows loopback)."""

    @classmethod
    def serve_options(cls):
        return ["--allowed-hosts", "loopback"]

    def names(self, driver=None):
        return [e.text for e in (driver or self.driver).find_elements(By.CSS_SELECTOR, ".now-list li .name")]

    def test_favourites_and_groups_switch_the_channels(self):
        driver = self.driver
        self.sign_in_admin()
        driver.get(self.server.url("/now?group="))
        everything = self.names()
        self.assertGreater(len(everything), 5)
        # One click on the star beside the third channel's name; back on the page, it is filled.
        self.submit(driver.find_elements(By.CSS_SELECTOR, ".now-list li form.favourite button.star")[2])
        self.assertEqual(driver.find_elements(By.CSS_SELECTOR, ".now-list li form.favourite button.star")[2].get_attribute("aria-pressed"), "true")
        driver.find_element(By.LINK_TEXT, "\u2605 Favourites").click()
        WebDriverWait(driver, 10).until(lambda d: "group=Favourites" in d.current_url)
        self.assertEqual(self.names(), [everything[2]])
        # Remembered with the profile: On now and the grid open on it, and the grid's script asks for its rows.
        driver.get(self.server.url("/now"))
        self.assertEqual(self.names(), [everything[2]])
        driver.get(self.server.url("/?day=%s&zoom=180" % DAY))
        WebDriverWait(driver, 20).until(lambda d: d.execute_script("return document.querySelectorAll('#rows .row:not(.loading)').length === 1"))
        self.assertEqual(driver.find_element(By.CSS_SELECTOR, "#rows .row .name").text, everything[2])
        driver.find_element(By.CSS_SELECTOR, ".group-filter").find_element(By.LINK_TEXT, "All channels").click()
        WebDriverWait(driver, 20).until(lambda d: d.execute_script("return document.querySelectorAll('#rows .row').length > 5"))

        # A group by hand: two channels by name, in this order; guests see it first.
        driver.get(self.server.url("/admin/channels"))
        self.fill({"name": "Evening"})
        driver.find_element(By.NAME, "channels").send_keys(everything[4] + "\n" + everything[1])
        self.submit(driver.find_element(By.CSS_SELECTOR, "#group-form button[type=submit]"))
        self.assertIn("Saved the group Evening (2 channels).", driver.find_element(By.ID, "channel-message").text)
        driver.find_element(By.CSS_SELECTOR, "#guest-group option[value=Evening]").click()
        self.submit(driver.find_element(By.CSS_SELECTOR, "#guest-group-form button"))
        guest = browser(800, 600)
        try:
            guest.get(self.server.url("/now"))
            self.assertEqual(self.names(guest), [everything[1], everything[4]])
            guest.find_element(By.CSS_SELECTOR, ".group-filter").find_element(By.LINK_TEXT, "All channels").click()
            WebDriverWait(guest, 10).until(lambda d: "group=" in d.current_url)
            self.assertEqual(self.names(guest), everything)
            self.assertEqual(guest.find_elements(By.CSS_SELECTOR, "form.favourite"), [], "no star without a profile")
        finally:
            guest.quit()

    def test_logos_come_from_tvguides_cache(self):
        import http.server
        asked = []
        with open(os.path.join(os.path.dirname(__file__), "../../Sources/GuideServer/Resources/static/icon-192.png"), "rb") as file:
            png = file.read()

        class Logo(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                asked.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(png)))
                self.end_headers()
                self.wfile.write(png)

            def log_message(self, *arguments):
                pass

        host = LoopbackServer(Logo, "/logos/first.png")
        try:
            driver = self.driver
            self.sign_in_admin()
            driver.get(self.server.url("/now?group="))
            name = self.names()[0]
            with urllib.request.urlopen(self.server.url("/api/channels")) as answer:
                channel = next(c for c in json.load(answer) if c["name"] == name)
            # An admin gives the channel a logo; every page shows tvguide's copy, fetched from the host once.
            driver.get(self.server.url("/admin/channels?q=" + urllib.parse.quote(channel["id"])))
            field = driver.find_element(By.ID, "logo-" + channel["id"])
            field.send_keys(host.url)
            self.submit(field.find_element(By.XPATH, "./following-sibling::button"))
            self.assertIn("shows the chosen logo", driver.find_element(By.ID, "channel-message").text)
            for page in ("/now?group=", "/?day=%s&zoom=180&group=" % DAY):
                driver.get(self.server.url(page))
                WebDriverWait(driver, 20).until(lambda d: d.execute_script(
                    "var i = document.querySelector('img[src^=\"/logo?c=' + encodeURIComponent(arguments[0]) + '&\"]');"
                    " return i && i.complete && i.naturalWidth === 192;", channel["id"]))
            self.assertEqual(asked, ["/logos/first.png"])
            self.assertFalse(driver.execute_script("return Array.from(document.images).some(function (i) { return i.src.indexOf('127.0.0.1:%d') >= 0; })"
                                                   % host.server.server_address[1]))
        finally:
            host.stop()

    def test_a_timeshift_channel_is_in_the_grid_and_search(self):
        driver = self.driver
        self.sign_in_admin()
        driver.get(self.server.url("/now?group="))
        base = self.names()[0]
        driver.get(self.server.url("/admin/channels"))
        self.fill({"base": base, "offset": "60", "number": "901"})
        self.submit(driver.find_element(By.CSS_SELECTOR, "#timeshift-form button[type=submit]"))
        self.assertIn("%s +1 shows the programmes of %s +1" % (base, base), driver.find_element(By.ID, "channel-message").text)
        with urllib.request.urlopen(self.server.url("/api/channels")) as answer:
            channels = json.load(answer)
        shifted = next(c for c in channels if c["name"] == base + " +1")
        original = next(c for c in channels if c["name"] == base)
        self.assertEqual(shifted["number"], "901")
        # The grid has its row: every programme of the base channel, an hour later.
        driver.get(self.server.url("/?day=%s&zoom=180&group=&channel=%s" % (DAY, urllib.parse.quote(shifted["id"]))))
        WebDriverWait(driver, 20).until(lambda d: d.execute_script(
            "var wanted = arguments[0];"
            " return Array.from(document.querySelectorAll('#rows .row .name')).some(function (n) { return n.textContent === wanted; })",
            base + " +1"))
        def cells(channel):
            with urllib.request.urlopen(self.server.url("/api/guide?channels=%s&from=%sT05:00:00Z&to=%sT23:59:00Z"
                                                        % (urllib.parse.quote(channel), DAY, DAY))) as answer:
                return [(p["title"], p["start"]) for p in json.load(answer)["channels"][0]["programmes"]]
        before, after = cells(original["id"]), cells(shifted["id"])
        self.assertGreater(len(after), 5)
        import datetime
        def later(start):
            return (datetime.datetime.fromisoformat(start.replace("Z", "+00:00")) + datetime.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.assertEqual(after[:5], [(title, later(start)) for title, start in before[:5]])
        row = driver.execute_script(
            "var wanted = arguments[0];"
            " var n = Array.from(document.querySelectorAll('#rows .row .name')).find(function (n) { return n.textContent === wanted; });"
            " return n.closest('.row').querySelectorAll('.p').length;", base + " +1")
        self.assertGreater(row, 0)
        # Search finds its airings beside the base channel's.
        driver.get(self.server.url("/search?q=" + urllib.parse.quote(after[2][0])))
        self.assertIn(base + " +1", driver.find_element(By.CSS_SELECTOR, "main").text)


class ThemeTests(OwnServer, Forms, unittest.TestCase):
    """A light theme beside the dark one: the device's setting by default, a toggle remembered per profile (and per
    browser for guests). Both are checked for contrast by axe-core on every kind of page in test_accessibility.py."""

    def device(self, scheme):
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})

    def background(self):
        return self.driver.execute_script("return getComputedStyle(document.body).backgroundColor")

    def test_the_toggle_is_remembered_per_profile_and_per_guest_browser(self):
        driver = self.driver
        self.device("dark")
        self.sign_in_admin()
        driver.get(self.server.url("/now"))
        self.assertEqual(driver.execute_script("return document.documentElement.dataset.theme"), "system")
        # ◐ goes system -> light -> dark -> system, back to the page it was on.
        self.submit(driver.find_element(By.CSS_SELECTOR, ".theme-switch button"))
        self.assertTrue(driver.current_url.endswith("/now"))
        self.assertEqual(driver.execute_script("return document.documentElement.dataset.theme"), "light")
        light = self.background()
        driver.get(self.server.url("/settings"))
        self.assertEqual(driver.find_element(By.CSS_SELECTOR, "#theme option[selected]").get_attribute("value"), "light")
        self.assertEqual(self.background(), light)
        # Another browser signed in as the same profile gets it too: it is the profile's.
        other = browser(800, 600)
        try:
            other.get(self.server.url("/signin"))
            other.find_element(By.NAME, "name").send_keys("Ada")
            other.find_element(By.NAME, "secret").send_keys("correct horse")
            other.find_element(By.CSS_SELECTOR, "form.stacked button[type=submit]").click()
            WebDriverWait(other, 10).until(lambda d: "/signin" not in d.current_url)
            other.get(self.server.url("/now"))
            self.assertEqual(other.execute_script("return document.documentElement.dataset.theme"), "light")
            # A guest's choice is this browser's own.
            other.delete_all_cookies()
            other.get(self.server.url("/now"))
            self.assertEqual(other.execute_script("return document.documentElement.dataset.theme"), "system")
            other.find_element(By.CSS_SELECTOR, ".theme-switch button").click()
            WebDriverWait(other, 10).until(lambda d: d.execute_script("return document.documentElement.dataset.theme") == "light")
            other.get(self.server.url("/search"))
            self.assertEqual(other.execute_script("return document.documentElement.dataset.theme"), "light")
        finally:
            other.quit()
        self.submit(driver.find_element(By.CSS_SELECTOR, ".theme-switch button"))
        self.assertEqual(driver.execute_script("return document.documentElement.dataset.theme"), "dark")
        self.submit(driver.find_element(By.CSS_SELECTOR, ".theme-switch button"))
        self.assertEqual(driver.execute_script("return document.documentElement.dataset.theme"), "system")


if __name__ == "__main__":
    unittest.main(verbosity=2)
