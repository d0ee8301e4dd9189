#!/usr/bin/env python3
"""Writes the large guide of `scripts/bench scale`: CHANNELS channels x DAYS days of real listings text.

usage: make-scale-xmltv.py [--days DAYS] [--first-day YYYYMMDD] OUTPUT.xml CHANNELS SOURCE.xml[.gz]...

Every channel is a copy of one of the real guides' channels (its display names, icon and number, a new id), and
plays that channel's own programmes in their order, again and again: the programme elements are real byte for byte
(titles, sub-titles, descriptions, credits, categories, episode numbers), so the titles repeat as a real channel's do.
Only start, stop and channel are written anew: back to back from the first day (default yesterday, UTC) for DAYS days
(default 7, may be a fraction), each programme as long as it really was, held between 15 and 120 minutes (45 minutes
on average). 10,000 channels x 5.5 days from the real guides of ../shared/data/xmltv/real is about 1.75 M programmes
and 740 MB. The same arguments write the same file.
"""
import argparse
import datetime
import gzip
import re
import sys

CHANNEL = re.compile(r"<channel\b[^>]*\bid=\"([^\"]*)\"[^>]*>(.*?)</channel>", re.S)
PROGRAMME = re.compile(r"<programme\b([^>]*)>(.*?)</programme>", re.S)
ATTRIBUTE = re.compile(r'\b(start|stop|channel)="([^"]*)"')
STAMP = re.compile(r"(\d{12,14})\s*([+-]\d{4})?")


def seconds(stamp):
    """Seconds since 1970 of an XMLTV time, or None."""
    match = STAMP.match(stamp)
    if not match:
        return None
    digits = match.group(1).ljust(14, "0")
    when = datetime.datetime.strptime(digits, "%Y%m%d%H%M%S").replace(tzinfo=datetime.timezone.utc)
    offset = match.group(2) or "+0000"
    shift = (int(offset[1:3]) * 60 + int(offset[3:5])) * 60 * (1 if offset[0] == "+" else -1)
    return int(when.timestamp()) - shift


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return f.read()


def main():
    parser = argparse.ArgumentParser(description="Writes the large guide of scripts/bench scale.")
    parser.add_argument("--days", type=float, default=7)
    parser.add_argument("--first-day", help="YYYYMMDD, UTC; default yesterday")
    parser.add_argument("output")
    parser.add_argument("channels", type=int)
    parser.add_argument("sources", nargs="+")
    arguments = parser.parse_args()
    output, channel_count, rest, days = arguments.output, arguments.channels, arguments.sources, arguments.days
    if not 0 < days <= 60 or not 0 < channel_count <= 100_000:
        sys.exit("make-scale-xmltv: DAYS is between 0 and 60, CHANNELS between 1 and 100,000")
    if arguments.first_day:
        first = datetime.datetime.strptime(arguments.first_day, "%Y%m%d").replace(tzinfo=datetime.timezone.utc)
    else:
        today = datetime.datetime.now(datetime.timezone.utc).date() - datetime.timedelta(days=1)
        first = datetime.datetime(today.year, today.month, today.day, tzinfo=datetime.timezone.utc)
    start_of_guide = int(first.timestamp())
    end_of_guide = start_of_guide + int(days * 86400)

    # Each real channel with its programmes (inner XML and length), in the guide's order; then the guides' channels
    # taken in turn, so that a guide of a few hundred channels has some of every guide (and every script).
    guides = []
    for path in sorted(rest):
        sources = []
        text = read(path)
        described = {cid: body for cid, body in CHANNEL.findall(text)}
        plays = {}
        for attributes, body in PROGRAMME.findall(text):
            found = dict(ATTRIBUTE.findall(attributes))
            begin, end = seconds(found.get("start", "")), seconds(found.get("stop", ""))
            length = (end - begin) if begin is not None and end is not None else 30 * 60
            plays.setdefault(found.get("channel", ""), []).append((max(15 * 60, min(120 * 60, length)), body))
        for cid in sorted(plays):
            if len(plays[cid]) >= 20:
                sources.append((cid, described.get(cid, f"<display-name>{cid}</display-name>"), plays[cid]))
        guides.append(sources)
    sources = [guide[turn] for turn in range(max(map(len, guides), default=0)) for guide in guides if turn < len(guide)]
    if not sources:
        sys.exit("make-scale-xmltv: no channel with 20 programmes in the sources")

    def stamp(value):
        return datetime.datetime.fromtimestamp(value, datetime.timezone.utc).strftime("%Y%m%d%H%M%S +0000")

    written = 0
    with open(output, "w", encoding="utf-8") as out:
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE tv SYSTEM "xmltv.dtd">\n')
        out.write('<tv generator-info-name="tvguide scripts/make-scale-xmltv.py">\n')
        for number in range(channel_count):
            cid, body, _ = sources[number % len(sources)]
            out.write(f'  <channel id="c{number}.{cid}">{body}</channel>\n')
        for number in range(channel_count):
            cid, _, plays = sources[number % len(sources)]
            name = f"c{number}.{cid}"
            # Copies of one channel start at different points of its programmes, so they differ at any time.
            index = (number // len(sources)) * 7 % len(plays)
            at = start_of_guide
            while at < end_of_guide:
                length, body = plays[index]
                index = (index + 1) % len(plays)
                out.write(f'  <programme start="{stamp(at)}" stop="{stamp(at + length)}" channel="{name}">{body}</programme>\n')
                at += length
                written += 1
        out.write("</tv>\n")
    print(f"make-scale-xmltv: {output}: {channel_count} channels, {written} programmes, {days} days from "
          f"{first.date()}", file=sys.stderr)


main()
