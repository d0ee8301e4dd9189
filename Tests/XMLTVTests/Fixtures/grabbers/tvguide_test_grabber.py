#!/usr/bin/env python3
"""An XMLTV grabber written for tvguide's tests. It follows the grabber protocol as XMLTV::Options and
XMLTV::Configure define it (../../../shared/data/grabbers/GRABBER-PROTOCOL.md): --description, --capabilities
(baseline, apiconfig), --configure-api stages start -> select-channels -> end, --list-channels, and a grab with
--config-file, --output, --days, --offset, --quiet. Its listings are made up (three channels, an hour-long programme
each hour, from midnight UTC of the day --offset names).

The tv_grab_zz_* wrappers beside it run it as one behaviour each: "good", or a misbehaving one the tests run as a
source: "hang" (ignores SIGTERM and never ends), "flood" (floods standard output), "fail" (says why on standard
error and exits 1), "half" (writes half a document and exits 0)."""
import os, signal, sys, time, datetime

BEHAVIOUR = sys.argv[1]
ARGS = sys.argv[2:]
CHANNELS = [("one.zz", "One"), ("two.zz", "Two"), ("three.zz", "Three")]


def option(name, default=None):
    if name in ARGS:
        index = ARGS.index(name)
        return ARGS[index + 1] if index + 1 < len(ARGS) else default
    return default


def load_config(path):
    """key=value / key!value lines; None when the file is missing, empty or unreadable, as XMLTV::Configure reads it."""
    if path is None or not os.path.exists(path):
        return None
    config = {}
    for line in open(path, encoding="utf-8"):
        line = line.split(" #")[0].rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        for mark in ("=", "!"):
            if mark in line:
                key, value = line.split(mark, 1)
                break
        else:
            return None
        config.setdefault(key, []).append((value, mark == "="))
    # An empty file is no configuration (XMLTV::Configure says "You need to configure the grabber").
    return config or None


def write(text, output):
    if output:
        with open(output, "w", encoding="utf-8") as stream:
            stream.write(text)
    else:
        sys.stdout.write(text)


def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def main():
    if "--description" in ARGS:
        print("tvguide's test grabber (%s)" % BEHAVIOUR)
        return 0
    if "--capabilities" in ARGS:
        print("baseline\napiconfig")
        return 0
    config_file = option("--config-file")
    output = option("--output")
    config = load_config(config_file)
    region = (config or {}).get("region", [("north", True)])[0][0]
    if "--configure-api" in ARGS:
        stage = option("--stage", "start")
        if stage == "start":
            write('<?xml version="1.0" encoding="utf-8"?>\n<xmltvconfiguration grabber="tv_grab_zz_tvguide">\n'
                  '  <selectone id="region" default="north">\n'
                  '    <title lang="en">Region</title><title lang="fr">Région</title>\n'
                  '    <description lang="en">Which region\'s listings to grab.</description>\n'
                  '    <option value="north"><text lang="en">The North</text></option>\n'
                  '    <option value="south"><text lang="en">The South</text></option>\n'
                  '  </selectone>\n'
                  '  <secretstring id="password"><title lang="en">Password</title></secretstring>\n'
                  '  <nextstage stage="select-channels"/>\n</xmltvconfiguration>\n', output)
            return 0
        if config is None:
            sys.stderr.write("You need to start configuration with the 'start' stage.\n")
            return 1
        if stage == "select-channels":
            options = "".join('    <option value="%s"><text lang="en">%s</text></option>\n' % (i, n) for i, n in CHANNELS)
            write('<?xml version="1.0" encoding="utf-8"?>\n<xmltvconfiguration grabber="tv_grab_zz_tvguide">\n'
                  '  <selectmany id="channel"><title lang="en">Channels</title>\n' + options +
                  '  </selectmany>\n  <nextstage stage="end"/>\n</xmltvconfiguration>\n', output)
            return 0
        sys.stderr.write("Unknown stage %s\n" % stage)
        return 1
    if config is None:
        if "--list-channels" in ARGS:
            sys.stderr.write("You need to configure the grabber before you can list the channels.\n")
        else:
            sys.stderr.write("You need to configure the grabber by running it with --configure \n")
        return 1
    if config.get("password", [("", True)])[0][0] != "secret":
        sys.stderr.write("** POST https://listings.invalid/login ==> 401 Unauthorized\nLogin failed: wrong password\n")
        return 1
    if "--list-channels" in ARGS:
        body = "".join('  <channel id="%s"><display-name>%s %s</display-name></channel>\n' % (i, escape(n), region.title())
                       for i, n in CHANNELS)
        write('<?xml version="1.0" encoding="utf-8"?>\n<tv generator-info-name="tv_grab_zz_tvguide">\n' + body + "</tv>\n", output)
        return 0

    # A grab. XMLTV::Options opens --output (truncating it) before any work.
    stream = open(output, "w", encoding="utf-8") if output else sys.stdout
    stream.write('<?xml version="1.0" encoding="utf-8"?>\n<tv generator-info-name="tv_grab_zz_tvguide">\n')
    stream.flush()
    if BEHAVIOUR == "hang":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        with open(os.path.join(os.environ["HOME"], "hang.pid"), "w") as pid:
            pid.write(str(os.getpid()))
        while True:
            time.sleep(1)
    if BEHAVIOUR == "flood":
        line = "Getting listings... " * 50 + "\n"
        while True:
            sys.stdout.write(line)
    if BEHAVIOUR == "fail":
        sys.stderr.write("Initializing...\n** GET https://listings.invalid/ ==> 500 Can't connect (Name or service not known)\n"
                         "Failed to get listings\n")
        return 1
    if "--quiet" not in ARGS:
        sys.stderr.write("Getting listings for %s...\n" % region)
    chosen = [value for value, on in config.get("channel", []) if on]
    days = int(option("--days", "5"))
    offset = int(option("--offset", "0"))
    start = datetime.datetime.now(datetime.timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0) \
        + datetime.timedelta(days=offset)
    for channel, name in CHANNELS:
        if channel in chosen:
            stream.write('  <channel id="%s"><display-name>%s %s</display-name></channel>\n' % (channel, name, region.title()))
    stamp = lambda t: t.strftime("%Y%m%d%H%M%S +0000")
    for channel, name in CHANNELS:
        if channel not in chosen:
            continue
        for hour in range(24 * days):
            begin = start + datetime.timedelta(hours=hour)
            stream.write('  <programme start="%s" stop="%s" channel="%s"><title lang="en">%s at %02d:00</title></programme>\n'
                         % (stamp(begin), stamp(begin + datetime.timedelta(hours=1)), channel, name, begin.hour))
            if BEHAVIOUR == "half" and hour == 12:
                stream.flush()
                return 0
    stream.write("</tv>\n")
    stream.close()
    return 0


sys.exit(main())
