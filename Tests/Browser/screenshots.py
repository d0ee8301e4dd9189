#!/usr/bin/python3
"""Makes the README's pictures of the guide in every language: the grid on a laptop and on a phone, from a real
`tvguide serve` on the sample listings at 2026-02-15 20:30 UTC. English is grid-desktop.png and grid-phone.png;
other languages add their code (grid-desktop-he.png). Documentation, not a test: scripts/screenshots runs it.
"""
import os
import sys

from selenium.webdriver.support.ui import WebDriverWait

from browser_support import DAY, SHOTS, browser, phone
from tvguide_server import Server

LANGUAGES = {"en": "en-GB,en", "de": "de-DE,de", "fr": "fr-FR,fr", "es": "es-ES,es", "hu": "hu-HU,hu", "he": "he-IL,he"}
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def main(languages):
    server = Server()
    os.makedirs(SHOTS, exist_ok=True)
    try:
        for code in languages:
            for size, (width, height) in SIZES.items():
                driver = phone(LANGUAGES[code]) if size == "phone" else browser(width, height, languages=LANGUAGES[code])
                try:
                    driver.get(server.url("/?day=%s&zoom=180" % DAY))
                    WebDriverWait(driver, 30).until(lambda d: d.execute_script(
                        "return document.querySelectorAll('#rows .row:not(.loading) .p').length > 20"
                        " && Array.from(document.images).every(function (i) { return i.complete; })"))
                    name = "grid-%s%s.png" % (size, "" if code == "en" else "-" + code)
                    driver.save_screenshot(os.path.join(SHOTS, name))
                    print("scripts/screenshots: " + os.path.join(SHOTS, name))
                finally:
                    driver.quit()
    finally:
        server.stop()


if __name__ == "__main__":
    main(sys.argv[1:] or list(LANGUAGES))
