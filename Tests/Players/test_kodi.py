#!/usr/bin/python3
"""A real IPTV player reads a feed per lineup: Debian's Kodi 20 with its IPTV Simple client, under Xvfb, given nothing
but the feed's playlist address (`/xmltv/TOKEN.m3u`, whose `x-tvg-url` names the feed's guide), as a viewer sets it up.

Real listings with logos and episode numbers (Tests/Players/freeview-ie-2024.xml.gz, nine Irish channels over eight
days; see PROVENANCE.md there) are moved to the days around the machine's real time, because Kodi keeps guide data
only from a day before its clock to three days after; `tvguide serve` runs on the same clock. An M3U playlist source
gives the channels numbers, groups and streams. The feed is made on the admin page (chromium), for three days.
Through Kodi's JSON-RPC: every channel with its number, groups and logo as the playlist has them, and at least 98% of
the feed's programmes with the title, start and episode numbers `/api/guide` gives them.

Run by scripts/test in a step of its own, with a time bound: /usr/bin/python3 Tests/Players/test_kodi.py
"""
import datetime
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "Browser"))

from selenium.webdriver.common.by import By  # noqa: E402

from browser_support import Forms, browser  # noqa: E402
from kodi_rpc import Kodi, KodiError  # noqa: E402
from tvguide_server import BINARY, Server  # noqa: E402

# The listings' first full day (2024-03-06) becomes today's broadcast day (from 05:00 UTC, the server's default); every
# programme moves by the same whole days.
LISTINGS_DAY = datetime.date(2024, 3, 6)
DAY_START = datetime.timedelta(hours=5)
# The playlist: each channel's number and groups (two groups: a ";" list, as IPTV players read group-title).
LINEUP = {
    "RTEOne.ie": ("1", "Saorview"), "RTE2.ie": ("2", "Saorview"), "VirginOne.ie": ("3", "Saorview"),
    "TG4.ie": ("4", "Saorview"), "VirginTwo.ie": ("6", "Saorview"), "VirginThree.ie": ("7", "Saorview"),
    "RTENews.ie": ("21", "Saorview;News"), "SkyNews.ie": ("22", "News"), "VirginFour.ie": ("55", "Virgin Media"),
}
FEED_DAYS = 3


def moved_listings(folder, today):
    """The real listings with every date moved by the days from LISTINGS_DAY to `today`, as a file in `folder`."""
    with gzip.open(os.path.join(HERE, "freeview-ie-2024.xml.gz"), "rt", encoding="utf-8") as file:
        text = file.read()
    shift = today - LISTINGS_DAY

    def move(match):
        day = datetime.datetime.strptime(match.group(2), "%Y%m%d").date() + shift
        return '%s="%s' % (match.group(1), day.strftime("%Y%m%d"))
    text = re.sub(r'(start|stop)="(\d{8})', move, text)
    path = os.path.join(folder, "freeview-ie.xml")
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)
    return path


def stamp(instant):
    return instant.strftime("%Y-%m-%dT%H:%M:%SZ")


def xmltv_stamp(text):
    """An XMLTV time in UTC ("20261127052000 +0000") as the API writes it."""
    return datetime.datetime.strptime(text, "%Y%m%d%H%M%S %z").astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def numbers(label):
    """Season and episode from the API's episode label ("S23 E152 of 160"), each None where missing."""
    season = re.search(r"\bS(\d+)", label or "")
    episode = re.search(r"\bE(\d+)", label or "")
    return (int(season.group(1)) if season else None, int(episode.group(1)) if episode else None)


class Admin(Forms):
    """An admin at a browser."""

    def __init__(self, server, driver):
        self.server, self.driver = server, driver


class KodiReadsTheFeed(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
        cls.now = now
        # The broadcast day the feed begins with: its first instant.
        cls.today = datetime.datetime.combine((now - DAY_START).date(), datetime.time(), datetime.timezone.utc) + DAY_START
        work = tempfile.mkdtemp(prefix="tvguide-kodi-listings-")
        cls.addClassCleanup(shutil.rmtree, work, ignore_errors=True)
        listings = moved_listings(work, cls.today.date())
        cls.server = Server(listings=listings, now=stamp(now))
        cls.addClassCleanup(cls.server.stop)
        playlist = os.path.join(work, "saorview.m3u")
        with open(playlist, "w", encoding="utf-8") as file:
            file.write("#EXTM3U\n")
            for channel, (number, groups) in LINEUP.items():
                file.write('#EXTINF:-1 tvg-id="%s" tvg-chno="%s" group-title="%s",%s\nhttp://192.0.2.1:8001/%s.ts\n'
                           % (channel, number, groups, channel, channel))
        for command in (["sources", "add", "saorview", playlist, "--format", "m3u"], ["refresh", "saorview"]):
            subprocess.run([BINARY] + command + ["--database", cls.server.database], check=True, capture_output=True,
                           env=cls.server.environment)
        cls.playlist_address = cls.make_feed()
        with urllib.request.urlopen(cls.playlist_address) as answer:
            cls.playlist = answer.read().decode("utf-8")
        cls.guide_address = re.search(r'x-tvg-url="([^"]+)"', cls.playlist.splitlines()[0]).group(1)
        # The viewer's whole setup: the playlist's address; the guide is the one it names.
        cls.kodi = Kodi({"m3uPathType": 1, "m3uUrl": cls.playlist_address, "epgPathType": 1, "epgUrl": "",
                         "logoPathType": 1, "logoBaseUrl": ""})
        cls.addClassCleanup(cls.kodi.stop)
        cls.kodi.enable_iptv_simple()
        cls.channels, cls.membership = cls.kodi.wait("the playlist's channels", cls.kodi_channels, 180)

    @classmethod
    def make_feed(cls):
        """The feed of the admin's channels, made on the admin page: its playlist's address, as the page shows it."""
        admin = Admin(cls.server, browser(1280, 900))
        try:
            admin.sign_in_admin()
            admin.driver.get(cls.server.url("/admin/feeds"))
            admin.fill({"name": "Living room Kodi", "days": str(FEED_DAYS)})
            next(option for option in admin.driver.find_elements(By.CSS_SELECTOR, "#feed-channels option")
                 if option.text == "Ada's channels").click()
            admin.submit(admin.driver.find_element(By.CSS_SELECTOR, "#feed-form button[type=submit]"))
            codes = [code.text for code in admin.driver.find_elements(By.CSS_SELECTOR, "#feed-address code")]
        finally:
            admin.driver.quit()
        return next(code for code in codes if code.endswith(".m3u"))

    @classmethod
    def kodi_channels(cls):
        """Kodi's TV channels and each one's groups, once it has all the playlist's (else None)."""
        try:
            groups = cls.kodi.call("PVR.GetChannelGroups", channeltype="tv")["channelgroups"]
        except KodiError:
            return None
        if not groups:
            return None
        channels = cls.kodi.call("PVR.GetChannels", channelgroupid="alltv",
                                 properties=["channel", "channelnumber", "thumbnail", "icon"])["channels"]
        if len(channels) < len(LINEUP):
            return None
        membership = {}
        for group in groups:
            if group["label"] == "All channels":
                continue
            for channel in cls.kodi.call("PVR.GetChannels", channelgroupid=group["channelgroupid"])["channels"]:
                membership.setdefault(channel["channelid"], []).append(group["label"])
        return channels, membership

    def test_kodi_has_every_channel_with_its_number_groups_and_logo(self):
        channels, membership = self.channels, self.membership
        with urllib.request.urlopen(self.server.url("/api/channels")) as answer:
            described = {channel["name"]: channel for channel in json.load(answer)}
        logos = dict(re.findall(r'tvg-name="([^"]*)" tvg-logo="([^"]*)"', self.playlist))
        self.assertEqual(len(logos), len(LINEUP), self.playlist)
        for channel in channels:
            ours = described[channel["channel"]]
            number, groups = LINEUP[ours["id"]]
            self.assertEqual(str(channel["channelnumber"]), number, channel)
            self.assertEqual(sorted(membership.get(channel["channelid"], [])), sorted(groups.split(";")), channel)
            logo = channel["icon"]
            self.assertEqual(logo, logos[channel["channel"]], channel)
            self.assertIn("/logo?", logo)
            self.assertEqual(urllib.parse.urlsplit(logo).query, urllib.parse.urlsplit(ours["logo"]).query, channel)

    def test_kodi_has_the_feeds_programmes_as_the_api_gives_them(self):
        channels = self.channels
        # The feed's days (from the start of today's broadcast day), as the API gives them: a day a request (it answers
        # up to 48 hours), each programme that overlaps the days once.
        expected = {}
        for day in range(FEED_DAYS):
            start, end = (self.today + datetime.timedelta(days=day + n) for n in (0, 1))
            with urllib.request.urlopen(self.server.url("/api/guide?from=%s&to=%s" % (stamp(start), stamp(end)))) as answer:
                for listings in json.load(answer)["channels"]:
                    for programme in listings["programmes"]:
                        expected[(listings["channel"]["name"], programme["start"])] = (
                            programme["title"], numbers(programme.get("episode")))
        # They are the feed's programmes.
        self.assertEqual(self.guide_address, re.sub(r"\.m3u$", ".xml", self.playlist_address))
        with urllib.request.urlopen(self.guide_address) as answer:
            feed = ET.fromstring(answer.read())
        names = {channel.get("id"): channel.findtext("display-name") for channel in feed.findall("channel")}
        self.assertEqual(sorted(expected), sorted((names[p.get("channel")], xmltv_stamp(p.get("start"))) for p in feed.findall("programme")))
        self.assertGreater(len(expected), 800)
        self.assertGreater(sum(1 for _, (season, episode) in expected.values() if episode), 300)

        def broadcasts():
            found = {}
            for channel in channels:
                for broadcast in self.kodi.call("PVR.GetBroadcasts", channelid=channel["channelid"],
                                                properties=["title", "starttime", "seasonnum", "episodenum"])["broadcasts"]:
                    begins = broadcast["starttime"].replace(" ", "T") + "Z"
                    found[(channel["channel"], begins)] = (broadcast["title"], (
                        broadcast["seasonnum"] if broadcast["seasonnum"] > 0 else None,
                        broadcast["episodenum"] if broadcast["episodenum"] > 0 else None))
            return found
        # Kodi reads the guide in the background after the channels: wait until it has them all, or its count holds.
        counts = []

        def settled():
            found = broadcasts()
            counts.append(len(found))
            return found if len(found) >= len(expected) or (len(counts) > 10 and len(found) > 0 and counts[-10] == len(found)) else None
        found = self.kodi.wait("the feed's programmes", settled, 300)
        same = [key for key, value in expected.items() if found.get(key) == value]
        missing = sorted(set(expected) - set(found))[:10]
        differing = [(key, expected[key], found[key]) for key in expected if key in found and found[key] != expected[key]][:10]
        print("Kodi has %d of the feed's %d programmes as the API gives them" % (len(same), len(expected)), file=sys.stderr)
        self.assertGreaterEqual(len(same), 0.98 * len(expected), (missing, differing))


if __name__ == "__main__":
    unittest.main(verbosity=2)
