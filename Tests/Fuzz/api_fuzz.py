#!/usr/bin/python3
"""The JSON API fuzzed from its own description: schemathesis (PyPI, in the virtual environment scripts/test makes)
generates requests from /openapi.json, with an admin-scope API token so the changing routes are reached too, against a
real `tvguide serve` (TVmaze answered by tvmaze-replay), for SECONDS. It fails when any answer is a 5xx or the server
stops answering.

    .build/fuzz-venv/bin/python Tests/Fuzz/api_fuzz.py [SECONDS] [SEED]
"""
import os
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Browser"))
from http_fuzz import Fuzzer, REPLAY  # noqa: E402
from tvguide_server import ROOT, Server, free_port  # noqa: E402


def admin_token(fuzzer):
    """An API token of scope admin, made on /admin as a person does."""
    form = urllib.parse.urlencode({"csrf": fuzzer.csrf, "name": "schemathesis", "scope": "admin"}).encode()
    cookie = "tvguide_session=%s; tvguide_csrf=%s" % (fuzzer.session, fuzzer.csrf)
    request = urllib.request.Request(fuzzer.server.url("/admin/tokens"), data=form,
                                     headers={"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"})
    page = urllib.request.urlopen(request, timeout=30).read().decode()
    return re.search(r'<code id="new-token">(tvg_[0-9a-f]+)</code>', page).group(1)


def main():
    seconds = int(float(sys.argv[1])) if len(sys.argv) > 1 else 60
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else int(time.time())
    replay_port = free_port()
    replay = subprocess.Popen([REPLAY, str(replay_port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = Server(["--tvmaze-url", "http://127.0.0.1:%d" % replay_port])
    try:
        fuzzer = Fuzzer(server, seed)
        token = admin_token(fuzzer)
        schemathesis = os.path.join(os.path.dirname(sys.executable), "schemathesis")
        report = os.path.join(ROOT, ".build", "api-fuzz")
        began = time.time()
        run = subprocess.run(
            [schemathesis, "run", server.url("/openapi.json"), "--checks", "not_a_server_error", "--max-time", str(seconds),
             "--seed", str(seed), "--request-timeout", "30", "--header", "Authorization: Bearer " + token,
             "--workers", "2", "--no-color", "--report", "ndjson", "--report-dir", report, "--suppress-health-check", "all"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        took = time.time() - began
        alive = fuzzer.alive()
        output = run.stdout
        summary = [line for line in output.splitlines() if re.search(r"(test cases|passed|failed|errors?|API Operations|Test Phases)", line)]
        print("api-fuzz: schemathesis, seed %d, %.0f s, exit %d, server %s" % (seed, took, run.returncode, "up" if alive else "DOWN"))
        for line in summary[-12:]:
            print("api-fuzz: " + line.strip())
        if run.returncode != 0 or not alive:
            print(output[-6000:])
            print("api-fuzz: the server's log: " + server.text()[-3000:])
            return 1
        return 0
    finally:
        server.stop()
        replay.terminate()


if __name__ == "__main__":
    sys.exit(main())
