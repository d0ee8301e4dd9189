#!/usr/bin/python3
"""Recording on the household's recorder, in a real browser (Debian's chromium, driven by selenium): an admin sets up
Tvheadend on the recorder page (a stand-in answering as its JSON API documents: `recorder-replay`), saves the channels
it suggests, and records from the grid's details panel; the panel says what the recorder made of it and the grid marks
the cell; on a television, OK twice records what has no stream; Cancel removes it on the recorder.

A real `tvguide serve` on the bundled sample listings, its clock at 2026-02-15 20:30 UTC; the stand-in's EPG is the
guide's own programmes on three channels (read from /api/guide), its channels named as Tvheadend often names them
("... HD").
Run by scripts/test after test_tv_mode.py: /usr/bin/python3 Tests/Browser/test_recording.py
"""
import hashlib
import json
import os
import re
import subprocess
import tempfile
import unittest
import urllib.parse
import urllib.request

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from browser_support import DAY, NOW_EPOCH, Forms, OwnServer
from tvguide_server import helper

RECORDER_REPLAY = helper("recorder-replay")


def iso(text):
    """An API time ("2026-02-15T20:00:00Z") in Unix seconds."""
    import datetime
    return int(datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc).timestamp())


class RecordingTests(OwnServer, Forms, unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        with urllib.request.urlopen(cls.server.url("/api/guide?from=%sT18:00:00Z&to=%sT23:59:00Z" % (DAY, DAY))) as answer:
            listed = [c for c in json.load(answer)["channels"] if c["programmes"]][:3]
        cls.channels = [c["channel"] for c in listed]
        guide = {"channels": [], "events": []}
        event = 1000
        for number, listing in enumerate(listed, start=1):
            uuid = "SYNTHETIC" + hashlib.sha1(listing["channel"]["id"].encode()).hexdigest()[:23]
            guide["channels"].append({"uuid": uuid, "name": listing["channel"]["name"] + " HD", "number": number})
            for programme in listing["programmes"]:
                event += 1
                guide["events"].append({"id": event, "channel": uuid, "title": programme["title"],
                                        "start": iso(programme["start"]), "stop": iso(programme["stop"])})
        path = os.path.join(tempfile.mkdtemp(), "guide.json")
        with open(path, "w") as file:
            json.dump(guide, file)
        cls.recorder = subprocess.Popen([RECORDER_REPLAY, path], stdout=subprocess.PIPE, text=True)
        cls.addClassCleanup(cls.stop_recorder)
        cls.recorder_base = re.search(r"listening at (\S+)", cls.recorder.stdout.readline()).group(1)

    @classmethod
    def stop_recorder(cls):
        cls.recorder.terminate()
        cls.recorder.wait(timeout=20)

    def upcoming(self):
        """What the stand-in has scheduled, read as a client of its API would (Digest handled by urllib)."""
        manager = urllib.request.HTTPPasswordMgrWithDefaultRealm()
        manager.add_password(None, self.recorder_base, "tvguide", "hunter2 & more")
        opener = urllib.request.build_opener(urllib.request.HTTPDigestAuthHandler(manager))
        with opener.open(self.recorder_base + "/api/dvr/entry/grid_upcoming") as answer:
            return json.load(answer)["entries"]

    def test_set_up_record_mark_and_cancel(self):
        driver = self.driver
        self.sign_in_admin()
        driver.get(self.server.url("/admin/recorder"))
        self.fill({"kind": "tvheadend", "address": self.recorder_base, "username": "tvguide", "secret": "hunter2 & more"})
        self.submit(driver.find_element(By.CSS_SELECTOR, "#recorder-form button[type=submit]"))
        self.assertIn("Saved.", driver.find_element(By.ID, "recorder-message").text)
        # Each of the three channels suggested by its name ("BBC One" for "BBC One HD").
        for channel in self.channels:
            row = driver.find_element(By.CSS_SELECTOR, "#recorder-channels tr[data-channel='%s']" % channel["id"])
            self.assertIn("suggested", row.text)
            chosen = row.find_element(By.CSS_SELECTOR, "select option:checked").text
            self.assertTrue(chosen.endswith(channel["name"] + " HD"), (chosen, channel["name"]))
        self.submit(driver.find_element(By.CSS_SELECTOR, "#recorder-channels button[type=submit]"))
        self.assertIn("3 channels can be recorded", driver.find_element(By.ID, "recorder-message").text)

        # Record from the grid's panel: what is on the first channel at 21:00.
        first = self.channels[0]["id"]
        driver.get(self.server.url("/?day=%s&channel=%s" % (DAY, urllib.parse.quote(first))))
        WebDriverWait(driver, 20).until(lambda d: d.execute_script(
            "return document.querySelector('#rows .row[data-channel=\"%s\"] .p') !== null" % first))
        cell = driver.execute_script("""
            var row = document.querySelector('#rows .row[data-channel="%s"]');
            var later = %d - Number(document.getElementById('guide').dataset.dayStart) + 1800;
            return Array.from(row.querySelectorAll('.p')).find(function (c) { return Number(c.dataset.start) <= later && later < Number(c.dataset.end); })
                || row.querySelector('.p');""" % (first, NOW_EPOCH))
        title = cell.find_element(By.CSS_SELECTOR, ".t").text
        cell.click()
        WebDriverWait(driver, 10).until(lambda d: not d.find_element(By.ID, "panel").get_attribute("hidden"))
        self.submit(driver.find_element(By.CSS_SELECTOR, "#panel form.record button[value='0']"))
        WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#panel .recording-state"))
        self.assertIn("Scheduled", driver.find_element(By.CSS_SELECTOR, "#panel .recording-state").text)
        self.assertEqual([entry["disp_title"] for entry in self.upcoming()], [title])
        WebDriverWait(driver, 20).until(lambda d: d.execute_script(
            "return document.querySelectorAll('#rows .p.rec').length === 1"))

        # On a television: OK opens the details of what is on the second channel, which has no stream, on Record;
        # a second OK records it.
        second = self.channels[1]["id"]
        driver.get(self.server.url("/?tv=1&day=%s&channel=%s" % (DAY, urllib.parse.quote(second))))
        WebDriverWait(driver, 20).until(lambda d: d.execute_script(
            "var a = document.activeElement; return a && a.classList.contains('p') && a.closest('.row').dataset.channel === arguments[0]",
            second))
        ActionChains(driver).send_keys(Keys.ENTER).perform()
        WebDriverWait(driver, 10).until(lambda d: d.execute_script(
            "return document.activeElement.closest('form.record') !== null"))
        driver.execute_script("window.tvguideOldPage = true")
        ActionChains(driver).send_keys(Keys.ENTER).perform()
        WebDriverWait(driver, 15).until(lambda d: d.execute_script("return !window.tvguideOldPage && document.readyState === 'complete'"))
        self.assertEqual(len(self.upcoming()), 2)

        # The recordings page lists both; Cancel removes one on the recorder too.
        driver.get(self.server.url("/recordings?tv=0"))
        self.assertEqual(len(driver.find_elements(By.CSS_SELECTOR, ".recording-list li.rec-scheduled")), 2)
        self.submit(driver.find_element(By.CSS_SELECTOR, ".recording-list li button"))
        self.assertIn("Cancelled", driver.find_element(By.ID, "recording-message").text)
        self.assertEqual(len(self.upcoming()), 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
