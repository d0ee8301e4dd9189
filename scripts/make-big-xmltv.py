#!/usr/bin/env python3
"""Writes a large XMLTV file for benchmarks by repeating a real guide's programmes on renamed channel copies.

usage: make-big-xmltv.py SOURCE.xml OUTPUT.xml TARGET_MB [CHANNELS]
       make-big-xmltv.py --high-cardinality OUTPUT.xml TARGET_MB CHANNELS SOURCE.xml[.gz]...

Each copy keeps the real programme elements byte for byte; only channel ids change, so the text the reader sees is
real listings text. Streams both files, so it needs little memory.

--high-cardinality mixes every SOURCE (several scripts: the real guides of ../shared/data/xmltv/real), copied onto
renamed channels until CHANNELS and TARGET_MB are reached, and makes it hard: every other programme gets a title of
its own (a Chinese, Japanese or Korean title from the sources with an episode number, so most distinct titles are
CJK), and one programme in 64 gets a second one starting 10 minutes into it, an overlap the import repairs.
"""
import gzip
import re
import sys

def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return f.read()

if sys.argv[1] == "--high-cardinality":
    output, target_mb, channel_target = sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
    channels, programmes = [], []
    for path in sys.argv[5:]:
        text = read(path)
        channels += re.findall(r"<channel\b.*?</channel>", text, re.S)
        programmes += re.findall(r"<programme\b.*?</programme>", text, re.S)
    cjk = sorted({t for t in re.findall(r"<title[^>]*>([^<]*)</title>", "".join(programmes))
                  if re.search(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]", t)}) or ["节目"]
    block = sum(len(p.encode()) for p in programmes)
    copies = max(1, int(target_mb * 1e6 / block + 0.999), -(-channel_target // max(1, len(channels))))
    channel_id = re.compile(r'(channel|id)="([^"]*)"')
    title = re.compile(r"(<title\b[^>]*>)([^<]*)(</title>)")
    start = re.compile(r'start="(\d{14})')
    written = distinct = overlaps = 0
    budget = target_mb * 1e6
    with open(output, "w", encoding="utf-8") as out:
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n<tv generator-info-name="make-big-xmltv --high-cardinality">\n')
        for copy in range(copies):
            for c in channels:
                out.write(channel_id.sub(lambda m: f'{m.group(1)}="{m.group(2)}~{copy}"', c, count=1) + "\n")
        size = 0
        for copy in range(copies):
            for p in programmes:
                if size > budget:
                    break
                p = channel_id.sub(lambda m: f'{m.group(1)}="{m.group(2)}~{copy}"' if m.group(1) == "channel" else m.group(0), p)
                written += 1
                if written % 2 == 0:
                    distinct += 1
                    name = f"{cjk[written % len(cjk)]} 第{written}集"
                    p = title.sub(lambda m: m.group(1) + name + m.group(3), p, count=1)
                out.write(p + "\n")
                size += len(p.encode())
                if written % 64 == 0 and start.search(p):
                    # A second programme ten minutes into this one: the import must repair the overlap.
                    begun = start.search(p).group(1)
                    minute = int(begun[10:12]) + 10
                    shifted = begun[:10] + f"{minute % 60:02d}" + begun[12:] if minute < 60 else None
                    if shifted:
                        overlaps += 1
                        extra = p.replace(f'start="{begun}', f'start="{shifted}', 1)
                        extra = title.sub(lambda m: m.group(1) + m.group(2) + " (重播)" + m.group(3), extra, count=1)
                        out.write(extra + "\n")
        out.write("</tv>\n")
    print(f"{output}: {written} programmes (+{overlaps} overlapping), {distinct} given titles of their own, "
          f"{copies * len(channels)} channels")
    sys.exit(0)

source, output, target_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
channel_target = int(sys.argv[4]) if len(sys.argv) > 4 else 0
text = open(source, encoding="utf-8").read()
channels = re.findall(r"<channel\b.*?</channel>", text, re.S)
programmes = re.findall(r"<programme\b.*?</programme>", text, re.S)
block = sum(len(p.encode()) for p in programmes)
copies = max(1, int(target_mb * 1e6 / block + 0.999))
if channel_target:
    copies = max(copies, -(-channel_target // max(1, len(channels))))
channel_id = re.compile(r'(channel|id)="([^"]*)"')
with open(output, "w", encoding="utf-8") as out:
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n<tv generator-info-name="make-big-xmltv">\n')
    for copy in range(copies):
        for c in channels:
            out.write(channel_id.sub(lambda m: f'{m.group(1)}="{m.group(2)}~{copy}"', c, count=1) + "\n")
    for copy in range(copies):
        for p in programmes:
            out.write(channel_id.sub(lambda m: f'{m.group(1)}="{m.group(2)}~{copy}"' if m.group(1) == "channel" else m.group(0), p) + "\n")
    out.write("</tv>\n")
print(f"{output}: {copies} copies of {len(programmes)} programmes on {len(channels)} channels")
