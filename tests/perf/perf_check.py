#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Field by field: `perf script --ns -F trace:comm,tid,cpu,time,event,trace`
of a perf.data against `userevents report --json` of the same file.

perf prints each record with libtraceevent and the event's print fmt (the
kernel's, for user events): integers as the print fmt says (a signed field
narrower than 32 bits as its unsigned bits: libtraceevent's way), strings
as they are, and a __rel_loc/__data_loc array that is not a string as its
location word (length << 16 | offset), as on a kernel with user_events.
report --json gives the values.  Every record must match: comm, tid, CPU,
time to the nanosecond, event, and each field perf prints.

usage: perf_check.py PERF_SCRIPT_OUTPUT REPORT_JSON
Prints a summary; exit 1 on any difference."""
import base64
import json
import re
import sys

# perf pads the seconds to five digits: two spaces before a time under
# 10,000 s (a machine up for less than three hours).
LINE = re.compile(r'^\s*(?P<comm>.*?)\s+(?P<tid>-?\d+) \[(?P<cpu>\d+)\]\s+'
                  r'(?P<s>\d+)\.(?P<ns>\d{9}):\s+(?P<sys>[^:\s]+):(?P<ev>[^:\s]+):(?P<rest>.*)$')


def same(pv, jv):
    """Whether perf's text pv shows the JSON value jv."""
    if isinstance(jv, bool):
        return pv in ('1', '0') and int(pv) == int(jv)
    if isinstance(jv, int):
        try:
            v = int(pv, 0)
        except ValueError:
            return False
        return any(v == jv % (1 << bits) for bits in (8, 16, 32, 64)) or v == jv
    if isinstance(jv, list):
        # A byte array perf shows as its location word: its length is the high half.
        return pv.isdigit() and int(pv) >> 16 == len(jv)
    if isinstance(jv, str):
        if pv == jv:
            return True
        try:
            raw = base64.b64decode(jv, validate=True)
        except ValueError:
            return False
        return pv.isdigit() and int(pv) >> 16 == len(raw)
    return False


def main():
    perf = [l for l in open(sys.argv[1], encoding='utf-8', errors='replace') if l.strip()]
    recs = [json.loads(l) for l in open(sys.argv[2], encoding='utf-8', errors='replace')]
    bad = []
    if len(perf) != len(recs):
        bad.append('perf script: %d records, report --json: %d' % (len(perf), len(recs)))
    fields = 0
    for i, (pl, r) in enumerate(zip(perf, recs)):
        m = LINE.match(pl.rstrip('\n'))
        if not m:
            bad.append('line %d: not a perf script line: %r' % (i + 1, pl))
            continue
        ts = int(m['s']) * 1000000000 + int(m['ns'])
        want = (r['comm'], r['pid'], r['cpu'], r['ts'], r['system'], r['event'])
        got = (m['comm'], int(m['tid']), int(m['cpu']), ts, m['sys'], m['ev'])
        if want != got:
            bad.append('line %d: perf %s, report %s' % (i + 1, got, want))
            continue
        for kv in m['rest'].split():
            if '=' not in kv:
                continue
            k, v = kv.split('=', 1)
            if k not in r['fields']:
                bad.append('line %d: %s: a field report has not' % (i + 1, k))
            elif not same(v, r['fields'][k]):
                bad.append('line %d: %s: perf %r, report %r' % (i + 1, k, v, r['fields'][k]))
            fields += 1
    events = sorted({(r['system'], r['event']) for r in recs})
    print('# %d records, %d fields compared, %d events' % (len(recs), fields, len(events)))
    for b in bad[:20]:
        print('#   ' + b)
    return 1 if bad or not recs else 0


sys.exit(main())
