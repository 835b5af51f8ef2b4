#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# files.sh: modes, ids, format, dynamic_events, status, set_event, enable
# files and trace header of a tracefs with two user events (see README.md).
T=/sys/kernel/tracing
cd $T
echo "== ls root"; ls -la $T
echo "== ls options"; ls -la $T/options
echo "== stat root"; stat -c '%a %U %G %s %n' $T $T/events $T/options
echo "== ls events"; ls -la $T/events | head -20
echo "== ls events/enable header"; stat -c '%a %s %n' $T/events/enable $T/events/header_page $T/events/header_event 2>&1
echo "== create"; echo 'u:foo u32 a; char[4] b' >> dynamic_events; echo rc=$?
echo 'u:bar __rel_loc char[] s' >> dynamic_events; echo rc=$?
echo "== ls events/user_events"; ls -la events/user_events
echo "== ls events/user_events/foo"; ls -la events/user_events/foo
echo "== id"; cat events/user_events/foo/id events/user_events/bar/id
echo "== format"; cat events/user_events/foo/format
echo "== dynamic_events"; cat dynamic_events
echo "== status"; cat user_events_status
echo "== available_events"; grep user_ available_events
echo "== set_event"; cat set_event; echo "rc=$?"
echo "== sys enable"; cat events/user_events/enable events/enable
echo 1 > events/user_events/foo/enable
echo "== after enable foo"; cat events/user_events/enable; cat events/enable; cat set_event; cat user_events_status; cat events/user_events/foo/enable
echo "== tracing_on"; cat tracing_on; cat buffer_size_kb; cat buffer_total_size_kb; cat options/fields options/overwrite
echo "== trace empty"; cat trace
echo "== trace_pipe nonblock? skip"
echo "== filter/trigger"; cat events/user_events/foo/filter; cat events/user_events/foo/trigger | head -3
echo "== del busy"; echo '-:foo' >> dynamic_events; echo rc=$?
echo 0 > events/user_events/foo/enable
echo '-:foo' >> dynamic_events; echo rc=$?
echo '!u:bar' >> dynamic_events; echo rc=$?
echo '-:nonexist' >> dynamic_events; echo rc=$?
cat dynamic_events; echo "== status after"; cat user_events_status
echo "== README"; cat README | grep -n -i "user\|dynamic_events" 
