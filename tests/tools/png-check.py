#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Check a screenshot is not blank: decode the PNG (zlib, no PIL: 8-bit
RGB or RGBA, not interlaced, as Chromium writes them) and count.
Usage: png-check.py FILE [--size WxH] [--ink PCT] [--colours N] [--near RRGGBB:N]...
  --size WxH       the image is W by H pixels
  --ink PCT        at least PCT % of the pixels differ from the background
                   (the most common colour)
  --colours N      at least N distinct colours
  --near RRGGBB:N  at least N pixels of that colour over the background, at
                   40 % or more (an anti-aliased line's edge is such a blend;
                   each channel within 24 of it)
Prints "WxH ink=P% colours=N background=RRGGBB near:RRGGBB=N ..." and exits
1 when a condition fails, 2 when the file is not such a PNG."""
import struct
import sys
import zlib


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def blend_of(px, c, bg):
    """How much of @c over @bg @px is (0 to 1: the least-squares alpha), or
    -1 when it is not such a blend (a channel 24 or more away)."""
    d = [c[j] - bg[j] for j in range(3)]
    dd = sum(v * v for v in d)
    if not dd:
        return -1
    a = max(0.0, min(1.0, sum((px[j] - bg[j]) * d[j] for j in range(3)) / dd))
    return a if all(abs(bg[j] + a * d[j] - px[j]) < 24 for j in range(3)) else -1


def decode(data):
    """(width, height, rows): rows of RGB bytes."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if len(body) != n:
            raise ValueError("truncated %s chunk" % kind.decode("latin1"))
        if zlib.crc32(kind + body) != struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0]:
            raise ValueError("bad CRC in %s" % kind.decode("latin1"))
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + n
    if not hdr:
        raise ValueError("no IHDR")
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("depth %d, colour type %d, interlace %d: not 8-bit RGB(A)" %
                         (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    if len(raw) != h * (stride + 1):
        raise ValueError("%d bytes of image data, not %d" % (len(raw), h * (stride + 1)))
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        cur = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                cur[i] = (cur[i] + cur[i - bpp]) & 255
        elif f == 2:
            cur = bytearray((a + b) & 255 for a, b in zip(cur, prev))
        elif f == 3:
            for i in range(stride):
                cur[i] = (cur[i] + ((cur[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif f == 4:
            for i in range(stride):
                left = cur[i - bpp] if i >= bpp else 0
                ul = prev[i - bpp] if i >= bpp else 0
                cur[i] = (cur[i] + paeth(left, prev[i], ul)) & 255
        elif f != 0:
            raise ValueError("row %d: filter %d" % (y, f))
        prev = cur
        if bpp == 4:
            # Over white, as a viewer shows it (Chromium's are opaque).
            rgb = bytearray(w * 3)
            for x in range(w):
                a = cur[4 * x + 3]
                for k in range(3):
                    rgb[3 * x + k] = (cur[4 * x + k] * a + 255 * (255 - a)) // 255
            cur = rgb
        rows.append(bytes(cur))
    return w, h, rows


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__)
        return 2
    path, want = args[0], {"near": []}
    i = 1
    while i < len(args):
        if args[i] in ("--size", "--ink", "--colours", "--near") and i + 1 < len(args):
            if args[i] == "--near":
                want["near"].append(args[i + 1])
            else:
                want[args[i][2:]] = args[i + 1]
            i += 2
        else:
            print("png-check: unknown argument %s" % args[i])
            return 2
    try:
        w, h, rows = decode(open(path, "rb").read())
    except (OSError, ValueError, zlib.error, struct.error) as e:
        print("png-check: %s: %s" % (path, e))
        return 2
    counts = {}
    for r in rows:
        for x in range(0, len(r), 3):
            px = r[x:x + 3]
            counts[px] = counts.get(px, 0) + 1
    bg, nbg = max(counts.items(), key=lambda kv: kv[1])
    ink = 100.0 * (w * h - nbg) / (w * h)
    bad = []
    line = "%dx%d ink=%.1f%% colours=%d background=%s" % (w, h, ink, len(counts), bg.hex())
    for spec in want["near"]:
        hexc, _, n = spec.partition(":")
        c = bytes.fromhex(hexc)
        got = sum(k for px, k in counts.items() if blend_of(px, c, bg) >= 0.4)
        line += " near:%s=%d" % (hexc, got)
        if got < int(n or 1):
            bad.append("%d pixels near #%s, fewer than %s" % (got, hexc, n or 1))
    print(line)
    if "size" in want and want["size"] != "%dx%d" % (w, h):
        bad.append("%dx%d, not %s" % (w, h, want["size"]))
    if "ink" in want and ink < float(want["ink"]):
        bad.append("%.1f%% of the pixels not the background, fewer than %s%%" % (ink, want["ink"]))
    if "colours" in want and len(counts) < int(want["colours"]):
        bad.append("%d colours, fewer than %s" % (len(counts), want["colours"]))
    for b in bad:
        print("png-check: %s: %s" % (path, b))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
