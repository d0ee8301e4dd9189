#!/usr/bin/python3
"""Every language in a real browser: the page's `lang` and `dir`, dates in the locale's form, no English left on the
pages a viewer meets first, a Hebrew page mirrored (the grid's time axis too) with an English title kept in its own
direction, and a profile's chosen language beating the browser's.

A real `tvguide serve` on the sample listings, its clock at 2026-02-15 20:30 UTC. Run by scripts/test:
/usr/bin/python3 Tests/Browser/test_languages.py
"""
import os
import re
import unittest

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser_support import DAY, Forms, browser
from tvguide_server import ROOT, Server

LOCALES = os.path.join(ROOT, "Sources", "Catalogs", "locales")
# The browser's Accept-Language, the page's lang and dir, and Sunday 15 February 2026 as the locale writes it.
LANGUAGES = {
    "en": ("en-GB,en", "ltr", "Sunday, 15 February 2026"),
    "de": ("de-DE,de", "ltr", "Sonntag, 15. Februar 2026"),
    "fr": ("fr-FR,fr", "ltr", "dimanche 15 février 2026"),
    "es": ("es-ES,es", "ltr", "domingo, 15 de febrero de 2026"),
    "hu": ("hu-HU,hu", "ltr", "2026. február 15., vasárnap"),
    "he": ("he-IL,he", "rtl", "יום ראשון, 15 בפברואר 2026"),
}
# Text from the listings, not the pages' words: left out when looking for English.
LISTINGS = "#rows .t, #rows .name, .now-list .title, .now-list .name, .results .title, .results .sub-title, .results .channel, " \
           ".details h2, .details .sub-title, .details .description, .details .channel, .details .facts dd, .flags, .airings li, " \
           "option, .chips .chip, .brand, code"


def catalog(code):
    """msgid -> msgstr (the first form) of a catalog, read as scripts/catalogs writes it."""
    entries, key = {}, None
    with open(os.path.join(LOCALES, code + ".po"), encoding="utf-8") as file:
        for line in file:
            match = re.match(r'(msgid|msgstr|msgstr\[0\]) "(.*)"$', line.strip())
            if match and match.group(1) == "msgid":
                key = match.group(2)
            elif match and key:
                entries[key] = match.group(2).replace('\\"', '"')
                key = None
    return entries


def english_left(driver, translations):
    """The page's texts (outside the listings' own) that are an English text of the catalogs translated otherwise."""
    english = {re.sub(r"<[^>]+>|\{[^}]*\}", "", key).strip() for key, value in translations.items() if key and value != key}
    # A word that is also this language's own for another text ("Series", Spanish for "Shows") is not English left.
    own = {re.sub(r"<[^>]+>|\{[^}]*\}", "", value).strip() for value in translations.values()}
    english = {text for text in english if len(text) > 3} - own
    texts = driver.execute_script("""
        var skip = arguments[0], found = [];
        var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        while (walker.nextNode()) {
          var node = walker.currentNode, text = node.textContent.trim();
          if (text && !node.parentElement.closest(skip)) found.push(text);
        }
        document.querySelectorAll('[aria-label], [title], [placeholder]').forEach(function (e) {
          if (e.closest(skip)) return;
          ['aria-label', 'title', 'placeholder'].forEach(function (a) { if (e.getAttribute(a)) found.push(e.getAttribute(a).trim()); });
        });
        return found;""", LISTINGS)
    return sorted({text for text in texts if text in english})


class LanguageTests(Forms, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server()
        cls.addClassCleanup(cls.server.stop)

    def open(self, driver, path, ready=None):
        driver.get("about:blank")
        driver.get(self.server.url(path))
        WebDriverWait(driver, 20).until(lambda d: d.execute_script("return document.readyState === 'complete'"))
        if ready:
            WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, ready))

    def test_each_language_has_its_words_formats_and_direction(self):
        for code, (accept, direction, long_date) in LANGUAGES.items():
            with self.subTest(language=code):
                driver = browser(1280, 800, languages=accept)
                self.addCleanup(driver.quit)
                translations = catalog(code)
                self.open(driver, "/?day=%s&zoom=180" % DAY, "#rows .row:not(.loading) .p")
                html = driver.find_element(By.TAG_NAME, "html")
                self.assertEqual((html.get_attribute("lang"), html.get_attribute("dir")), (code, direction))
                self.assertEqual(driver.find_element(By.CSS_SELECTOR, ".day-label").text, long_date)
                self.assertEqual(driver.find_element(By.CSS_SELECTOR, "nav[aria-label] a[href='/now']").text,
                                 translations.get("On now") or "On now")
                pages = ["/?day=%s&zoom=180" % DAY, "/now", "/search?q=news", "/signin"]
                programme = driver.execute_script("return document.querySelector('#rows .p').getAttribute('href')")
                pages.append(programme)
                for page in pages:
                    self.open(driver, page)
                    if code != "en":
                        self.assertEqual(english_left(driver, translations), [], "%s in %s" % (page, code))

    def test_hebrew_mirrors_the_grid_and_isolates_an_english_title(self):
        driver = browser(1280, 800, languages="he-IL,he")
        self.addCleanup(driver.quit)
        self.open(driver, "/?day=%s&zoom=180" % DAY, "#rows .row:not(.loading) .p")
        layout = driver.execute_script("""
            var channel = document.querySelector('#rows .row .ch').getBoundingClientRect();
            var scroller = document.getElementById('grid-scroll');
            var row = document.querySelector('#rows .row:not(.loading)');
            var cells = Array.from(row.querySelectorAll('.p'));
            var earlier = cells[0].getBoundingClientRect(), later = cells[cells.length - 1].getBoundingClientRect();
            var english = Array.from(document.querySelectorAll('#rows .p .t')).find(function (t) { return /^[A-Za-z]/.test(t.textContent); });
            return {channelRight: channel.right, width: scroller.clientWidth, scrolled: scroller.scrollLeft,
                    earlierIsRight: earlier.left > later.left || cells.length === 1,
                    title: english.textContent, titleDirection: getComputedStyle(english).direction,
                    pageDirection: getComputedStyle(document.body).direction};""")
        # The channels on the right, time running to the left, scrolled toward now from the right edge.
        self.assertGreater(layout["channelRight"], layout["width"] - 5)
        self.assertTrue(layout["earlierIsRight"])
        self.assertLess(layout["scrolled"], 0)
        self.assertEqual((layout["pageDirection"], layout["titleDirection"]), ("rtl", "ltr"), layout["title"])
        # The arrow keys follow the direction: Left is later.
        cell = driver.execute_script("var c = document.querySelectorAll('#rows .row[data-index=\"2\"] .p'); c[1].focus(); return c[1];")
        start = int(cell.get_attribute("data-start"))
        from selenium.webdriver.common.keys import Keys
        driver.switch_to.active_element.send_keys(Keys.ARROW_LEFT)
        self.assertGreater(int(driver.switch_to.active_element.get_attribute("data-start")), start)

    def test_the_admin_and_series_pages_leave_no_english(self):
        # Every page an admin and a follower of shows open, in German and in Hebrew: with a source of its own (added
        # through the page, in the language), a token and a feed, so their tables and messages are there too.
        for code in ("de", "he"):
            with self.subTest(language=code):
                self.driver = driver = browser(1280, 800, languages=LANGUAGES[code][0])
                self.addCleanup(driver.quit)
                translations = catalog(code)
                self.sign_in_admin()
                self.open(driver, "/admin/sources")
                if not driver.find_elements(By.CSS_SELECTOR, "tr[data-source='tv-%s']" % code):
                    driver.find_element(By.ID, "source-name").send_keys("tv-" + code)
                    driver.find_element(By.ID, "source-location").send_keys("/nonexistent/guide-%s.xml" % code)
                    driver.find_element(By.CSS_SELECTOR, "input[name=refresh]").click()
                    self.submit(driver.find_element(By.CSS_SELECTOR, "form.stacked button[type=submit]"))
                    self.assertEqual(english_left(driver, translations), [], "the message of an added source in %s" % code)
                pages = ["/admin", "/admin/sources", "/admin/source?name=tv-" + code, "/admin/health", "/admin/health?all=1",
                         "/admin/channels", "/admin/feeds", "/admin/recorder", "/admin/boxes", "/admin/grabbers",
                         "/admin/schedules-direct", "/settings", "/reminders", "/recordings", "/upcoming",
                         "/calendar?view=month&date=2026-02-15", "/calendar?view=week&date=2026-02-15", "/up-next", "/history"]
                for page in pages:
                    self.open(driver, page)
                    self.assertEqual(driver.find_element(By.TAG_NAME, "html").get_attribute("lang"), code, page + driver.find_element(By.TAG_NAME, "body").text[:600])
                    self.assertEqual(english_left(driver, translations), [], "%s in %s" % (page, code))

    def test_a_profiles_language_beats_the_browsers(self):
        self.driver = browser(1280, 800, languages="de-DE,de")
        self.addCleanup(self.driver.quit)
        self.sign_in_admin()
        self.open(self.driver, "/settings")
        self.assertEqual(self.driver.find_element(By.TAG_NAME, "html").get_attribute("lang"), "de")
        self.fill({"language": "fr", "hours": "12"})
        self.submit(self.driver.find_element(By.CSS_SELECTOR, "form.stacked button[type=submit]"))
        self.open(self.driver, "/now")
        self.assertEqual(self.driver.find_element(By.TAG_NAME, "html").get_attribute("lang"), "fr")
        self.assertIn("En ce moment", self.driver.find_element(By.TAG_NAME, "h1").text)
        # Twelve hours as French writes them.
        self.assertRegex(self.driver.find_element(By.CSS_SELECTOR, ".now-page h1 small").text, r"\d{1,2}:\d\d\s?(PM|AM|p\.m\.|a\.m\.)")
        # The scripts write times with the same clock (the offline banner's "listings as of"): 20:30 UTC.
        offline_time = "return Offline.time(1771187400, 'UTC')"
        self.assertRegex(self.driver.execute_script(offline_time), r"^8:30\s?(PM|p\.m\.)$")
        self.open(self.driver, "/settings")
        self.fill({"language": "", "hours": "locale"})
        self.submit(self.driver.find_element(By.CSS_SELECTOR, "form.stacked button[type=submit]"))
        self.assertEqual(self.driver.find_element(By.TAG_NAME, "html").get_attribute("lang"), "de")
        self.assertEqual(self.driver.execute_script(offline_time), "20:30")


if __name__ == "__main__":
    unittest.main(verbosity=2)
