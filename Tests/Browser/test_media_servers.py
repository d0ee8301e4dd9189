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
import socket
import subprocess
import tempfile
import unittest
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
import zlib

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser_support import DAY, Forms, OwnServer
from tvguide_server import BINARY, free_port

HDHOMERUN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hdhomerun")
# An SSDP search as Plex and Jellyfin send it to 239.255.255.250:1900 (sent here to serve's SSDP port on loopback).
M_SEARCH = ('M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: "ssdp:discover"\r\nMX: 1\r\n'
            'ST: urn:schemas-upnp-org:device:MediaServer:1\r\n\r\n')


def fetch(url):
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.read(), answer.headers.get("Content-Type", "")


def same_types(test, ours, real, where):
    """Every field the real device sends, ours sends with the same JSON type (Legacy excepted: old firmware only)."""
    for key, value in real.items():
        if key == "Legacy":
            continue
        test.assertIn(key, ours, where)
        test.assertIs(type(ours[key]), type(value), (where, key))


def hdhomerun_discover(address, device_type=0xFFFFFFFF, device_id=0xFFFFFFFF):
    """HDHomeRun's discovery request to `address`:65001 and its reply's fields, read as libhdhomerun's hdhomerun_pkt.h
    writes them (type, length, tag-length-value items, a little-endian CRC-32 of what precedes it); None when no reply
    comes within 2 s. Written from the header, not from tvguide's code."""
    payload = bytes([0x01, 4]) + device_type.to_bytes(4, "big") + bytes([0x02, 4]) + device_id.to_bytes(4, "big")
    packet = (2).to_bytes(2, "big") + len(payload).to_bytes(2, "big") + payload
    packet += (zlib.crc32(packet) & 0xFFFFFFFF).to_bytes(4, "little")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.settimeout(2)
        probe.sendto(packet, (address, 65001))
        try:
            reply = probe.recvfrom(1460)[0]
        except socket.timeout:
            return None
    assert int.from_bytes(reply[0:2], "big") == 3, reply
    assert int.from_bytes(reply[2:4], "big") == len(reply) - 8, reply
    assert zlib.crc32(reply[:-4]) & 0xFFFFFFFF == int.from_bytes(reply[-4:], "little"), reply
    fields, index, end = {}, 4, len(reply) - 4
    names = {0x01: "device_type", 0x02: "device_id", 0x10: "tuner_count", 0x2A: "base_url", 0x27: "lineup_url"}
    while index < end:
        tag, length = reply[index], reply[index + 1]
        index += 2
        if length & 0x80:
            length = (length & 0x7F) | (reply[index] << 7)
            index += 1
        value = reply[index:index + length]
        index += length
        if tag in names:
            fields[names[tag]] = value.decode() if tag in (0x2A, 0x27) else int.from_bytes(value, "big")
    # libhdhomerun's check of a device id's last digit (hdhomerun_discover_validate_device_id).
    table = [0xA, 0x5, 0xF, 0x6, 0x7, 0xC, 0x1, 0xB, 0x9, 0x2, 0x8, 0xD, 0x4, 0x3, 0xE, 0x0]
    nibbles = [(fields["device_id"] >> shift) & 0xF for shift in range(28, -4, -4)]
    check = 0
    for position, nibble in enumerate(nibbles):
        check ^= table[nibble] if position % 2 == 0 and position < 7 else nibble
    assert check == 0, "%08X fails the check digit" % fields["device_id"]
    return fields


class MediaServerFeedTests(OwnServer, Forms, unittest.TestCase):

    SSDP_PORT = free_port()

    @classmethod
    def serve_options(cls):
        # HDHomeRun's discovery on its own port: hdhomerun_config sends to no other (scripts/test runs this file where
        # nothing else holds UDP 65001).
        return ["--discovery", "ssdp:%d,hdhomerun:65001" % cls.SSDP_PORT]
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
        subprocess.run([BINARY, "import", path, "--database", self.server.database], check=True, capture_output=True,
                       env=self.server.environment)

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

    def test_a_feed_is_a_tuner_plex_and_jellyfin_accept(self):
        """The feed's HDHomeRun answers, field by field against a real device's (Jellyfin's test data); at
        /hdhomerun/TOKEN/ and at the root of the port the admin gives it; found by an SSDP search on loopback."""
        driver = self.driver
        with urllib.request.urlopen(self.server.url("/api/guide?from=%sT18:00:00Z&to=%sT23:00:00Z" % (DAY, DAY))) as answer:
            channels = [c["channel"] for c in json.load(answer)["channels"] if c["programmes"]][:6]
        playlist = os.path.join(self.server.folder, "tuner.m3u")
        with open(playlist, "w") as file:
            file.write("#EXTM3U\n")
            for index, channel in enumerate(channels):
                number = ' tvg-chno="%d.1"' % (index + 2) if index < 4 else ""
                file.write('#EXTINF:-1 tvg-id="%s"%s group-title="Tuner",%s\nhttp://192.0.2.7:5004/auto/v%d\n'
                           % (channel["id"], number, channel["name"], index))
        for command in (["sources", "add", "tuner-m3u", playlist, "--format", "m3u"], ["refresh", "tuner-m3u"]):
            subprocess.run([BINARY] + command + ["--database", self.server.database], check=True, capture_output=True,
                           env=self.server.environment)
        self.sign_in_admin()
        driver.get(self.server.url("/admin/feeds"))
        self.fill({"name": "Plex tuner", "days": "2"})
        driver.find_element(By.CSS_SELECTOR, "#feed-channels option[value='group:Tuner']").click()
        self.submit(driver.find_element(By.CSS_SELECTOR, "#feed-form button[type=submit]"))
        base = re.search(r"(http://\S+/hdhomerun/\S+)\.", driver.find_element(By.CSS_SELECTOR, "#feed-address").text).group(1)

        with open(os.path.join(HDHOMERUN, "discover-HDHR3-US.json")) as file:
            real_discover = json.load(file)
        with open(os.path.join(HDHOMERUN, "lineup.json")) as file:
            real_lineup = json.load(file)
        with urllib.request.urlopen(self.server.url("/api/channels")) as answer:
            numbers = {c["name"]: c.get("number") for c in json.load(answer)}

        def check_device(base):
            discover = json.loads(fetch(base + "/discover.json")[0])
            same_types(self, discover, real_discover, "discover.json")
            self.assertEqual(discover["BaseURL"], base)
            self.assertEqual(discover["LineupURL"], base + "/lineup.json")
            self.assertRegex(discover["DeviceID"], r"^[0-9A-F]{8}$")
            self.assertEqual(discover["FriendlyName"], "tvguide Plex tuner")
            lineup = json.loads(fetch(discover["LineupURL"])[0])
            self.assertEqual(len(lineup), len(channels))
            allowed = set().union(*(entry.keys() for entry in real_lineup))
            by_name = {entry["GuideName"]: entry for entry in lineup}
            for index, channel in enumerate(channels):
                entry = by_name[channel["name"]]
                self.assertLessEqual(set(entry), allowed, entry)
                same_types(self, entry, {k: v for k, v in real_lineup[0].items() if k in entry}, "lineup.json")
                self.assertEqual(entry["URL"], "http://192.0.2.7:5004/auto/v%d" % index)
                # Numbered as the guide numbers them; those without a number follow the highest, never twice.
                self.assertEqual(entry["GuideNumber"], numbers[channel["name"]] if index < 4 else entry["GuideNumber"])
                self.assertEqual(entry.get("HD"), 1 if re.search(r"\bHD\b", channel["name"]) else None, entry)
            self.assertEqual(sorted(by_name[c["name"]]["GuideNumber"] for c in channels[:4]), ["2.1", "3.1", "4.1", "5.1"])
            self.assertEqual(sorted(by_name[c["name"]]["GuideNumber"] for c in channels[4:]), ["6", "7"])
            status = json.loads(fetch(base + "/lineup_status.json")[0])
            self.assertEqual(status, {"ScanInProgress": 0, "ScanPossible": 0, "Source": "Cable", "SourceList": ["Cable"]})
            description, kind = fetch(base + "/device.xml")
            self.assertIn("xml", kind)
            upnp = "{urn:schemas-upnp-org:device-1-0}"
            root = ET.fromstring(description)
            self.assertEqual(root.findtext(upnp + "URLBase"), base)
            device = root.find(upnp + "device")
            self.assertEqual(device.findtext(upnp + "deviceType"), "urn:schemas-upnp-org:device:MediaServer:1")
            self.assertEqual(device.findtext(upnp + "friendlyName"), "tvguide Plex tuner")
            self.assertRegex(device.findtext(upnp + "UDN"), r"^uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
            return discover["DeviceID"], device.findtext(upnp + "UDN")

        identity = check_device(base)
        # An unknown token reads nothing.
        with self.assertRaises(urllib.error.HTTPError) as refused:
            fetch(base[:-4] + "0000/discover.json")
        self.assertEqual(refused.exception.code, 404)

        # Plex: a port of the feed's own, answering at the root.
        port = free_port()
        row = driver.find_element(By.CSS_SELECTOR, "#feeds tr[data-feed='Plex tuner']")
        field = row.find_element(By.NAME, "port")
        field.clear()
        field.send_keys(str(port))
        self.submit(row.find_element(By.CSS_SELECTOR, "td.tuner button"))
        row = driver.find_element(By.CSS_SELECTOR, "#feeds tr[data-feed='Plex tuner']")
        self.assertEqual(row.find_element(By.CSS_SELECTOR, ".tuner-address code").text, "127.0.0.1:%d" % port)
        self.assertIn("480 channels", driver.find_element(By.CSS_SELECTOR, ".feeds-page").text)
        self.assertEqual(check_device("http://127.0.0.1:%d" % port), identity)

        # SSDP, on loopback: the search as Plex sends it, answered with the tuner port's device.xml.
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.settimeout(5)
            probe.sendto(M_SEARCH.encode(), ("127.0.0.1", self.SSDP_PORT))
            answer = probe.recvfrom(4096)[0].decode()
        lines = answer.split("\r\n")
        self.assertEqual(lines[0], "HTTP/1.1 200 OK")
        fields = {line.split(":", 1)[0].upper(): line.split(":", 1)[1].strip() for line in lines[1:] if ":" in line}
        self.assertEqual(fields["LOCATION"], "http://127.0.0.1:%d/device.xml" % port)
        self.assertEqual(fields["ST"], "urn:schemas-upnp-org:device:MediaServer:1")
        self.assertEqual(fields["USN"], identity[1] + "::urn:schemas-upnp-org:device:MediaServer:1")
        self.assertIn("EXT", fields)

        # HDHomeRun's own discovery, as Plex and Channels DVR find a tuner: libhdhomerun's reference client finds the
        # device by its id (its check digit holds, or the client drops it), and the reply's base URL serves the lineup.
        found = subprocess.run(["hdhomerun_config", "discover", "127.0.0.1"], capture_output=True, text=True, timeout=30)
        self.assertIn("hdhomerun device %s found at 127.0.0.1" % identity[0], found.stdout, found.stdout + found.stderr)
        reply = hdhomerun_discover("127.0.0.1")
        self.assertEqual(reply["device_type"], 1)
        self.assertEqual("%08X" % reply["device_id"], identity[0])
        self.assertEqual(reply["tuner_count"], 2)
        self.assertEqual(reply["base_url"], "http://127.0.0.1:%d" % port)
        self.assertEqual(reply["lineup_url"], reply["base_url"] + "/lineup.json")
        lineup = json.loads(fetch(reply["lineup_url"])[0])
        self.assertEqual(sorted(entry["GuideName"] for entry in lineup), sorted(c["name"] for c in channels))
        for index, channel in enumerate(channels):
            entry = next(e for e in lineup if e["GuideName"] == channel["name"])
            self.assertEqual(entry["URL"], "http://192.0.2.7:5004/auto/v%d" % index)
            self.assertEqual(entry["GuideNumber"], numbers[channel["name"]] if index < 4 else entry["GuideNumber"])
        # A request for another device id, or for a storage device, is not answered.
        self.assertIsNone(hdhomerun_discover("127.0.0.1", device_id=0x12345671))
        self.assertIsNone(hdhomerun_discover("127.0.0.1", device_type=5))

        # Closing the port stops its server.
        row = driver.find_element(By.CSS_SELECTOR, "#feeds tr[data-feed='Plex tuner']")
        row.find_element(By.NAME, "port").clear()
        self.submit(row.find_element(By.CSS_SELECTOR, "td.tuner button"))
        def closed(_):
            try:
                fetch("http://127.0.0.1:%d/discover.json" % port)
                return False
            except OSError:
                return True
        WebDriverWait(None, 10, poll_frequency=0.1).until(closed, "the tuner's port still answers")


if __name__ == "__main__":
    unittest.main(verbosity=2)
