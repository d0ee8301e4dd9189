#!/usr/bin/python3
"""A feed for Plex and Jellyfin in a real browser (Debian's chromium, driven by selenium): made on the admin page for a
channel group, then read back independently (Python's own XML parser against the JSON API) and checked by
xmltv-util's tv_validate_file.

A real `tvguide serve` on the bundled sample listings, its clock at 2026-02-15 20:30 UTC, with real programmes that
carry episode numbers imported beside them.
Run by scripts/test after test_living_room.py: /usr/bin/python3 Tests/Browser/test_media_servers.py
"""
import json
import os
import re
import subprocess
import tempfile
import unittest
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET

from selenium.webdriver.common.by import By

from browser_support import DAY, Forms, OwnServer
from tvguide_server import BINARY


class MediaServerFeedTests(OwnServer, Forms, unittest.TestCase):
    """A feed for Plex and Jellyfin, made on the admin page and read back independently: every programme's categories
    and episode numbers in the store are in the feed as the rules in docs/media-servers.md say, and xmltv-util's
    tv_validate_file accepts it. Real programmes with episode numbers (Tests/Browser/freeview-ie-episodes.xml,
    their days moved to the test day) beside the sample's, which carry categories."""

    def test_the_plex_feed_agrees_with_an_independent_reading(self):
        driver = self.driver
        with open(os.path.join(os.path.dirname(__file__), "freeview-ie-episodes.xml")) as file:
            listings = file.read()
        listings = re.sub(r'(start|stop)="20240306', lambda m: '%s="%s' % (m.group(1), DAY.replace("-", "")), listings)
        listings = re.sub(r'(start|stop)="20240307', lambda m: '%s="20260216' % m.group(1), listings)
        path = os.path.join(tempfile.mkdtemp(), "freeview-ie.xml")
        with open(path, "w") as file:
            file.write(listings)
        subprocess.run([BINARY, "import", path, "--database", self.server.database], check=True, capture_output=True)

        self.sign_in_admin()
        with urllib.request.urlopen(self.server.url("/api/guide?from=%sT18:00:00Z&to=%sT23:00:00Z" % (DAY, DAY))) as answer:
            listed = [c["channel"]["id"] for c in json.load(answer)["channels"] if c["programmes"] and not c["channel"]["id"].endswith(".ie")]
        ids = listed[:2] + ["RTEOne.ie", "RTE2.ie", "VirginTwo.ie"]
        driver.get(self.server.url("/admin/channels"))
        self.fill({"name": "For Plex"})
        driver.find_element(By.NAME, "channels").send_keys("\n".join(ids))
        self.submit(driver.find_element(By.CSS_SELECTOR, "#group-form button[type=submit]"))
        driver.get(self.server.url("/admin/feeds"))
        self.fill({"name": "Living room", "days": "2"})
        driver.find_element(By.CSS_SELECTOR, "#feed-channels option[value='group:For Plex']").click()
        self.submit(driver.find_element(By.CSS_SELECTOR, "#feed-form button[type=submit]"))
        address = driver.find_element(By.CSS_SELECTOR, "#feed-address code").text
        self.assertIn("/xmltv/", address)
        row = driver.find_element(By.CSS_SELECTOR, "#feeds tr[data-feed='Living room']").text
        self.assertIn("Plex and Jellyfin", row)

        with urllib.request.urlopen(address) as answer:
            feed = answer.read()
        self.assertNotIn(b'lang=""', feed)
        root = ET.fromstring(feed)
        self.assertEqual(sorted(c.get("id") for c in root.findall("channel")), sorted(ids))

        # The store's own reading of each programme, found by channel and start.
        stored = {}
        for day in ("2026-02-14", DAY, "2026-02-16", "2026-02-17"):
            with urllib.request.urlopen(self.server.url("/api/guide?channels=%s&from=%sT00:00:00Z&to=%sT23:59:59Z"
                                                        % (",".join(urllib.parse.quote(i) for i in ids), day, day))) as answer:
                for listings in json.load(answer)["channels"]:
                    for programme in listings["programmes"]:
                        stored[(listings["channel"]["id"], programme["start"])] = programme["id"]
        numbered = categorised = 0
        programmes = root.findall("programme")
        self.assertGreater(len(programmes), 100)
        for element in programmes:
            start = element.get("start")
            key = (element.get("channel"), "%s-%s-%sT%s:%s:%sZ" % (start[0:4], start[4:6], start[6:8], start[8:10], start[10:12], start[12:14]))
            self.assertTrue(start.endswith(" +0000") and element.get("stop"), start)
            with urllib.request.urlopen(self.server.url("/api/programmes/%d" % stored[key])) as answer:
                programme = json.load(answer)
            categories = [c.text for c in element.findall("category")]
            systems = {e.get("system"): e.text for e in element.findall("episode-num")}
            for category in programme.get("categories", []):
                self.assertIn(category, categories, key)
                categorised += 1
            numbering = programme.get("numbering") or {}
            if numbering.get("season") or numbering.get("episode"):
                numbered += 1
                fields = systems["xmltv_ns"].split(".")
                self.assertEqual(int(fields[0]) + 1 if fields[0] else None, numbering.get("season"), key)
                self.assertEqual(int(fields[1].split("/")[0]) + 1 if len(fields) > 1 and fields[1] else None, numbering.get("episode"), key)
                onscreen = ("S%02d" % numbering["season"] if numbering.get("season") else "") + ("E%02d" % numbering["episode"] if numbering.get("episode") else "")
                self.assertEqual(systems["onscreen"], onscreen, key)
            # A film has Movie first and no number; everything else has a number of some kind, so it can be series-recorded.
            if categories and categories[0] == "Movie":
                self.assertEqual(systems, {}, key)
            else:
                self.assertTrue(systems.get("xmltv_ns") or systems.get("original-air-date"), key)
        self.assertGreater(numbered, 50)
        self.assertGreater(categorised, 20)

        # xmltv-util's validator reads it against xmltv.dtd (the copy in the XMLTV tests' fixtures).
        check = os.path.join(tempfile.mkdtemp(), "feed.xml")
        with open(check, "wb") as file:
            file.write(feed)
        fixtures = os.path.join(os.path.dirname(__file__), "..", "XMLTVTests", "Fixtures")
        result = subprocess.run(["tv_validate_file", check], capture_output=True, text=True,
                                env={"XMLTV_SUPPLEMENT": os.path.abspath(fixtures), "PATH": "/usr/bin:/bin"})
        complaints = [line for line in (result.stdout + result.stderr).splitlines() if line.strip()
                      and not any(known in line for known in ("Validated ok", "Invalid channel-id", "error found", "errors found"))]
        self.assertEqual(complaints, [], result.stdout + result.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
