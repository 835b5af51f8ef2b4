#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# otlp-check.py EXPECTED [--json] < LINES: the otlp_metrics trace lines on
# stdin (of `trace` or `userevents report`), or with --json the JSON records
# of `report --json` (the buffer as an array of bytes or base64), must carry,
# in order, exactly the buffers otlp-sizes printed in EXPECTED ("SIZE FNV1A"
# lines): byte-exact, compared by length and 64-bit FNV-1a.  Prints what it
# found; exit 1 on a mismatch.
import base64
import json
import re
import sys


def fnv1a(b):
    h = 0xcbf29ce484222325
    for x in b:
        h = ((h ^ x) * 0x100000001b3) & 0xffffffffffffffff
    return h


want = []
with open(sys.argv[1]) as f:
    for line in f:
        w = line.split()
        if len(w) == 2 and w[0] != 'over':
            want.append((int(w[0]), int(w[1], 16)))
got = []
for line in sys.stdin:
    if sys.argv[2:] == ['--json']:
        r = json.loads(line)
        if r.get('event') != 'otlp_metrics':
            continue
        v = r['fields']['buffer'] if 'fields' in r else r['buffer']
        b = bytes(v) if isinstance(v, list) else base64.b64decode(v)
        got.append((len(b), fnv1a(b)))
        continue
    m = re.search(r' otlp_metrics: protocol=\S+ \(1\) version=0\.1\.0 buffer=([0-9a-f,]*)$',
                  line.rstrip('\n'))
    if m:
        b = bytes(int(x, 16) for x in m.group(1).split(',') if x)
        got.append((len(b), fnv1a(b)))
for (n, h) in got:
    print('# got %d bytes %016x' % (n, h))
if got != want or not want:
    print('# expected: ' + ', '.join('%d %016x' % w for w in want))
    sys.exit(1)
