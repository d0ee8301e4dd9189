#!/usr/bin/python3
"""axe-core (the copy PyPI's axe-playwright-python ships) on every kind of page, at a laptop's and a phone's width,
in the dark and the light theme as the device asks for them: no critical and no serious finding (WCAG 2.2 A and AA:
contrast, names, roles, scrollable regions ...).

The series pages (shows, seasons, episodes, people, up next, history) are checked in test_series.py, where TVmaze's
stand-in answers. Run by scripts/test: /usr/bin/python3 Tests/Browser/test_accessibility.py
"""
import json
import os
import unittest
import urllib.request

from browser_support import AXE, DAY, Forms, assert_accessible, browser, phone
from tvguide_server import ROOT, Server

SAMPLE = os.path.join(ROOT, "Sources", "GuideServer", "Resources", "sample-listings.xml.gz")

SIZES = {"laptop": (1280, 800), "phone": (390, 844)}


@unittest.skipUnless(AXE, "needs axe-core: TVGUIDE_TEST_AXE names axe.min.js (scripts/test installs it)")
class AccessibilityTests(Forms, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # The sample listings as a source of the guide, so the admin pages have a source, its channels and its health.
        cls.server = Server(before=[["sources", "add", "sample", SAMPLE]])
        cls.addClassCleanup(cls.server.stop)
        with urllib.request.urlopen(cls.server.url("/api/search?q=news")) as answer:
            cls.programme = json.load(answer)[0]["id"]

    def check(self, driver, pages, label):
        assert_accessible(self, driver, [(self.server.url(page), ready) for page, ready in pages], label)

    def test_a_guest_s_pages(self):
        for label, (width, height) in SIZES.items():
            driver = phone() if label == "phone" else browser(width, height)
            self.addCleanup(driver.quit)
            self.check(driver, [
                ("/?day=%s&zoom=180" % DAY, "#rows .row:not(.loading) .p"),
                ("/?day=%s&zoom=180&genre=news" % DAY, "#rows .p.dim"),
                ("/?day=%s&zoom=180&p=%d" % (DAY, self.programme), "#panel h2"),
                ("/?day=%s&tv=1" % DAY, "#rows .row:not(.loading) .p"),
                ("/now", None), ("/search?q=news", ".results .aired"), ("/search?q=news&in=all&genre=news", None),
                ("/programmes/%d" % self.programme, ".airings"), ("/signin", None), ("/setup", "input[name=code]"), ("/offline", None),
                ("/no-such-page", None),
            ], label)

    def test_a_signed_in_admin_s_pages(self):
        for label, (width, height) in SIZES.items():
            self.driver = phone() if label == "phone" else browser(width, height)
            self.addCleanup(self.driver.quit)
            self.sign_in_admin()
            self.check(self.driver, [
                ("/?day=%s&zoom=180" % DAY, "#rows .row:not(.loading) .p"),
                ("/settings", None), ("/channels", None), ("/reminders", None), ("/recordings", None),
                ("/upcoming", None), ("/calendar", None), ("/shows", None),
                ("/admin", None), ("/admin/sources", "table.sources"), ("/admin/channels", "#channel-admin"),
                ("/admin/feeds", None), ("/admin/health", "#source-health"), ("/admin/boxes", None), ("/admin/grabbers", None),
                ("/admin/recorder", None), ("/admin/schedules-direct", None), ("/admin/refresh", None),
                ("/admin/source?name=sample", "table.plain"),
            ], label)


if __name__ == "__main__":
    unittest.main(verbosity=2)
