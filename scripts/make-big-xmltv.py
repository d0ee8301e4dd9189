#!/usr/bin/env python3
"""Writes a large XMLTV file for benchmarks by repeating a real guide's programmes on renamed channel copies.

usage: make-big-xmltv.py SOURCE.xml OUTPUT.xml TARGET_MB [CHANNELS]

Each copy keeps the real programme elements byte for byte; only channel ids change, so the text the reader sees is
real listings text. Streams both files, so it needs little memory.
"""
import re
import sys

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
