#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Puts trace lines and userevents' JSON records in one form, so the tool
# tests can diff them: "COMM PID CPU SEC.USEC EVENT name=value ..." with
# integers in decimal, byte arrays as "0a,0b", strings as they are.
#
#   records-norm.py trace < trace-lines      records-norm.py json < json-lines
import json
import re
import sys

TRACE = re.compile(r'^ *(.{16})-(\d+) +\[(\d+)\] \S+ +(\d+\.\d+): ([^:]+): (.*)$')
INT = re.compile(r'=0x[0-9a-f]+ \((-?\d+)\)')


def from_trace(line):
    m = TRACE.match(line)
    if not m:
        return None
    comm, pid, cpu, ts, event, fields = m.groups()
    return '%s %s %d %s %s %s' % (comm.strip(), pid, int(cpu), ts, event,
                                  INT.sub(r'=\1', fields))


def value(v):
    if isinstance(v, list):
        return ','.join('%02x' % b for b in v)
    return str(v)


def from_json(line):
    r = json.loads(line)
    keys = list(r)
    if keys != ['ts', 'cpu', 'pid', 'comm', 'system', 'event', 'fields']:
        raise SystemExit('records-norm: unexpected keys %s' % keys)
    fields = ' '.join('%s=%s' % (k, value(v)) for k, v in r['fields'].items())
    usecs = (r['ts'] + 500) // 1000  # the trace rounds to microseconds
    return '%s %d %d %d.%06d %s %s' % (r['comm'] or '<...>', r['pid'], r['cpu'],
                                       usecs // 10**6, usecs % 10**6, r['event'], fields)


def main():
    conv = {'trace': from_trace, 'json': from_json}[sys.argv[1]]
    for line in sys.stdin:
        if line.startswith('#') or not line.strip():
            continue
        out = conv(line.rstrip('\n'))
        if out is not None:
            print(out)


main()
