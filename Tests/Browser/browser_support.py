"""What the browser tests share: a headless chromium, forms filled as a person fills them, a test class with a
`tvguide serve` of its own, and real HTTP servers on loopback for what the guide fetches or calls."""
import os
import shutil

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tvguide_server import ROOT, Server

# Where the tests' pictures go: the build's scratch, unless TVGUIDE_SCREENSHOTS names another folder. The README's
# pictures are refreshed on purpose (TVGUIDE_SCREENSHOTS=docs/screenshots, as scripts/screenshots sets it): a local
# run of the tests rewrote docs/screenshots/offline-grid.png twice, and it was committed by mistake both times.
SHOTS = os.environ.get("TVGUIDE_SCREENSHOTS", os.path.join(ROOT, ".build", "screenshots"))
# The server's clock in every browser test: 2026-02-15 20:30 UTC (tvguide_server.NOW), as seconds and its day.
NOW_EPOCH = 1771187400
DAY = "2026-02-15"


def browser(width, height, javascript=True, languages="en-GB,en"):
    """A headless chromium `width` x `height`, asking for pages in `languages` (its Accept-Language): British English
    unless a test asks for another, so times read as 24-hour ones."""
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--lang=" + languages.split(",")[0],
                     "--window-size=%d,%d" % (width, height), "--hide-scrollbars", "--force-device-scale-factor=1"]:
        options.add_argument(argument)
    prefs = {"intl.accept_languages": languages}
    if not javascript:
        prefs["profile.managed_default_content_settings.javascript"] = 2
    options.add_experimental_option("prefs", prefs)
    os.environ["TZ"] = "UTC"
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    driver.set_window_size(width, height)
    return driver


# axe-core, as axe-playwright-python ships it (scripts/test installs the wheel and names the file).
AXE = os.environ.get("TVGUIDE_TEST_AXE", "")
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


def axe_failures(driver):
    """axe-core's critical and serious findings on the page open in `driver` (WCAG 2.2 A and AA rules), each as
    "rule: target (summary)"; the page is left as it was."""
    if not driver.execute_script("return typeof window.axe === 'object'"):
        with open(AXE) as script:
            driver.execute_script(script.read())
    found = driver.execute_async_script("""
        var done = arguments[arguments.length - 1];
        axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}, resultTypes: ['violations']})
          .then(function (result) { done(result.violations); }, function (error) { done([{id: 'axe failed', impact: 'critical',
            nodes: [{target: [String(error)], failureSummary: ''}]}]); });""", AXE_TAGS)
    return ["%s: %s (%s)" % (rule["id"], " ".join(node["target"]), " ".join((node.get("failureSummary") or "").split())[:200])
            for rule in found if rule["impact"] in ("critical", "serious") for node in rule["nodes"][:5]]


def assert_accessible(test, driver, pages, label):
    """Opens each (address, selector to wait for or None) of `pages` in the dark and the light theme, as the device
    asks for them, and fails `test` on any critical or serious axe-core finding (a subtest per page)."""
    if not AXE:
        test.skipTest("needs axe-core: TVGUIDE_TEST_AXE names axe.min.js (scripts/test installs it)")
    for scheme in ("dark", "light"):
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        for page, ready in pages:
            driver.get("about:blank")
            driver.get(page)
            WebDriverWait(driver, 20).until(lambda d: d.execute_script("return document.readyState === 'complete'"))
            if ready:
                WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, ready), "%s: no %s" % (page, ready))
            with test.subTest(page=page, scheme=scheme, size=label):
                test.assertEqual(axe_failures(driver), [])
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def phone(languages="en-GB,en"):
    """A headless chromium whose page is exactly a 390 x 844 phone's screen (a window of that size keeps some of it for
    the browser's own bars): a touch screen, as the phone's browser reports it."""
    driver = browser(390, 844, languages=languages)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    return driver


class Forms:
    """Filling and submitting forms the way a person does, waiting for the page each leads to, on the test class's
    `server` and `driver`."""

    def submit(self, button):
        """Clicks a form's button and waits for the page it leads to."""
        # A mark on the old page's window; the new page has none. (Selenium's staleness_of trips over chromium's
        # "node does not belong to the document" while the page changes.)
        self.driver.execute_script("window.tvguideOldPage = true")
        button.click()
        WebDriverWait(self.driver, 15).until(lambda d: d.execute_script(
            "return !window.tvguideOldPage && document.readyState === 'complete'"))

    def live_text(self, selector):
        """The text of an element the page's script may replace at any moment (the refresh view's rows and
        summary), read in one script call: an element found first and read after may be gone by then."""
        return self.driver.execute_script(
            "var e = document.querySelector(arguments[0]); return e ? e.innerText : '';", selector)

    def fill(self, fields):
        for name, value in fields.items():
            element = self.driver.find_element(By.NAME, name)
            if element.get_attribute("type") == "radio":
                self.driver.find_element(By.CSS_SELECTOR, "input[name=%s][value='%s']" % (name, value)).click()
            elif element.tag_name == "select":
                element.find_element(By.CSS_SELECTOR, "option[value='%s']" % value).click()
            else:
                element.clear()
                element.send_keys(value)

    def sign_in_admin(self):
        """Signs in as the admin Ada, creating her with the setup code when no profile exists yet."""
        driver = self.driver
        driver.get(self.server.url("/setup"))
        if driver.find_elements(By.NAME, "code"):
            self.fill({"code": self.server.setup_code, "name": "Ada", "kind": "password", "secret": "correct horse"})
        else:
            driver.get(self.server.url("/signin"))
            self.fill({"name": "Ada", "secret": "correct horse"})
        self.submit(driver.find_element(By.CSS_SELECTOR, "form.stacked button[type=submit]"))


class OwnServer:
    """A test class with a `tvguide serve` of its own (fresh database, sample listings) and a laptop-sized browser;
    `serve_options()` adds serve options (as an admin allowing the test's receivers on loopback: allowed-hosts)."""

    @classmethod
    def serve_options(cls):
        return []

    @classmethod
    def setUpClass(cls):
        cls.server = Server(extra=cls.serve_options())
        cls.driver = browser(1280, 900)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()


class LoopbackServer:
    """A real HTTP server on loopback, answering with `handler` (a BaseHTTPRequestHandler) on a thread of its own."""

    def __init__(self, handler, path):
        import http.server
        import threading
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = "http://127.0.0.1:%d%s" % (self.server.server_address[1], path)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
