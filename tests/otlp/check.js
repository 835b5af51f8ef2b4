#!/usr/bin/env node
// SPDX-License-Identifier: LGPL-2.1-or-later
// Holds what the test receiver got (its log: requests decoded against the
// official schema) against what otlp-provider wrote (its manifest) and what
// `userevents export` counted (its stderr).  Prints "ok: ..." and
// "FAIL: ..." lines; exit 1 when anything failed.
//
//   check.js mapping LOG MANIFEST STDERR [options]
//       every row of the mapping (docs/otlp.md), for every record written
//   check.js delivery LOG MANIFEST STDERR [options]
//       nothing lost uncounted: each record written is delivered, or
//       counted as dropped or rejected, and the counters agree with what
//       the receiver answered
// options:
//   --protocol protobuf|json   the content type every request must have
//   --gzip                     every request gzip-compressed
//   --header K=V               a header every request must carry
//   --metrics FILE             the otlp_metrics payload (byte-identical on /v1/metrics)
//   --exe NAME                 process.executable.name (default otlp-provider)
//   --host NAME                host.name (default this host's name)
//   --all                      delivery: everything must be delivered (no drops)
//   --rejected N               delivery: the exporter must count N rejected
//   --dropped-min N            delivery: at least N dropped
//   --retried-min N            delivery: at least N requests retried
//   --retry-after S            delivery: after an answer with Retry-After: S, the
//                              next request waits S seconds at least
//   --absent EVENT             mapping: EVENT must not have been exported
'use strict';
const fs = require('fs');
const os = require('os');

const [mode, logFile, manFile, errFile, ...rest] = process.argv.slice(2);
const opt = { headers: [], absent: [], exe: 'otlp-provider', host: os.hostname() };
for (let i = 0; i < rest.length; i++) {
	const a = rest[i];
	if (a === '--gzip' || a === '--all')
		opt[a.slice(2)] = true;
	else if (a === '--header')
		opt.headers.push(rest[++i]);
	else if (a === '--absent')
		opt.absent.push(rest[++i]);
	else if (['--protocol', '--metrics', '--exe', '--host'].includes(a))
		opt[a.slice(2)] = rest[++i];
	else if (['--rejected', '--dropped-min', '--retried-min', '--retry-after'].includes(a))
		opt[a.slice(2).replace(/-(\w)/g, (_, c) => c.toUpperCase())] = Number(rest[++i]);
	else {
		console.log(`FAIL: check.js: unknown option ${a}`);
		process.exit(2);
	}
}

let fails = 0;
const ok = (what) => console.log(`ok: ${what}`);
const fail = (what) => { console.log(`FAIL: ${what}`); fails++; };
const check = (cond, what, why) => (cond ? ok(what) : fail(why ? `${what}: ${why}` : what));

const lines = (f) => fs.readFileSync(f, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
const log = lines(logFile);
const manifest = lines(manFile);
const summary = (manifest.find((m) => m.summary) || {}).summary || {};
const written = manifest.filter((m) => m.event);
const stderr = fs.readFileSync(errFile, 'utf8');

// The exporter's counters: "export: R records, M metrics events; sent S,
// rejected J, dropped D[: n WHY, n WHY...]; Q requests, T retried".
const whyWords = { queue_full: 'with the queue full', http: 'refused by the collector',
	retries: 'still failing after', exit: 'unsent when export exited', too_large: 'larger than' };
function counters() {
	const m = /export: (\d+) records, (\d+) metrics events; sent (\d+), rejected (\d+), dropped (\d+)(.*?); (\d+) requests, (\d+) retried/.exec(stderr);
	if (!m)
		return null;
	const c = { records: +m[1], metrics: +m[2], sent: +m[3], rejected: +m[4], dropped: +m[5],
		requests: +m[7], retried: +m[8], why: {} };
	for (const [key, words] of Object.entries(whyWords)) {
		const w = new RegExp(`(\\d+) ${words}`).exec(m[6]);
		if (w)
			c.why[key] = +w[1];
	}
	return c;
}

const requests = log.filter((l) => l.ev === 'request');
const answers = new Map(log.filter((l) => l.ev === 'answer').map((l) => [l.seq, l]));
const logsReqs = requests.filter((r) => r.path === '/v1/logs');
const metricsReqs = requests.filter((r) => r.path === '/v1/metrics');

// Every log record of the accepted (answered 2xx) requests, with its
// resource, scope and request.
function records(reqs) {
	const out = [];
	for (const r of reqs)
		for (const rl of (r.decoded && r.decoded.resourceLogs) || [])
			for (const sl of rl.scopeLogs || [])
				for (const lr of sl.logRecords || [])
					out.push({ lr, resource: rl.resource || {}, scope: sl.scope || {}, req: r });
	return out;
}
const attr = (lr, key) => ((lr.attributes || []).find((a) => a.key === key) || {}).value;
const seqOf = (lr) => { const v = attr(lr, 'seq'); return v && v.intValue !== undefined ? String(v.intValue) : null; };

// A manifest field [name, type, value] as the AnyValue the mapping gives it.
function anyValue(type, v) {
	switch (type) {
	case 'int': return { intValue: String(v) };
	case 'string': return { stringValue: v };
	case 'bytes': return { bytesValue: Buffer.from(v, 'hex').toString('base64') };
	case 'bool': return { boolValue: v };
	case 'double': return { doubleValue: v };
	}
	throw new Error(`type ${type}`);
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const show = (v) => JSON.stringify(v);

// ---- what every request must be ----
function checkRequests() {
	check(requests.length > 0, `the receiver got ${requests.length} requests`);
	const bad = requests.filter((r) => r.error);
	check(bad.length === 0, 'every request decodes with the official schema (strict)',
		bad.map((r) => `#${r.seq} ${r.path}: ${r.error}`).join('; '));
	const wantType = opt.protocol === 'json' ? 'application/json' : 'application/x-protobuf';
	const wrongType = logsReqs.filter((r) => r.contentType !== wantType);
	check(wrongType.length === 0, `logs requests are ${wantType}`, wrongType.map((r) => r.contentType).join(', '));
	const wrongM = metricsReqs.filter((r) => r.contentType !== 'application/x-protobuf');
	check(wrongM.length === 0, 'metrics requests are application/x-protobuf (the payload as it came)',
		wrongM.map((r) => r.contentType).join(', '));
	const wantEnc = opt.gzip ? 'gzip' : '';
	const wrongEnc = requests.filter((r) => r.contentEncoding !== wantEnc);
	check(wrongEnc.length === 0, `content-encoding ${wantEnc || 'none'}`,
		wrongEnc.map((r) => `#${r.seq} '${r.contentEncoding}'`).join(', '));
	if (opt.gzip) {
		const notSmaller = requests.filter((r) => r.bodyLength > 600 && r.wireLength >= r.bodyLength);
		check(notSmaller.length === 0, 'gzip: the bodies are compressed');
	}
	for (const h of opt.headers) {
		const [k, ...v] = h.split('=');
		const missing = requests.filter((r) => r.headers[k.toLowerCase()] !== v.join('='));
		check(missing.length === 0, `header ${k} on every request`, `missing on ${missing.length}`);
	}
	const ua = requests.filter((r) => r.method !== 'POST');
	check(ua.length === 0, 'every request is a POST');
}

// ---- mapping ----
function mapping() {
	checkRequests();
	const c = counters();
	check(c !== null, 'the exporter printed its counters', stderr.trim().split('\n').slice(-3).join(' | '));
	const accepted = logsReqs.filter((r) => answers.has(r.seq) && answers.get(r.seq).status === 200);
	const recs = records(accepted);
	const expected = written.filter((w) => w.event !== 'otlp_metrics');
	check(recs.length === expected.length, `${expected.length} log records written, ${recs.length} exported`);
	if (c)
		check(c.sent === written.length && c.dropped === 0 && c.rejected === 0,
			`counters: sent ${c.sent} of ${written.length}, dropped ${c.dropped}, rejected ${c.rejected}`);

	const rows = {};	// mapping row -> list of failures
	const row = (name, cond, why) => {
		rows[name] = rows[name] || [];
		if (!cond)
			rows[name].push(why);
	};
	let maxSkew = 0;
	for (const w of expected) {
		const mine = recs.filter(({ lr }) => lr.eventName === w.event &&
			(w.seq === undefined || seqOf(lr) === String(w.seq)));
		const name = `${w.event}${w.seq !== undefined ? `#${w.seq}` : ''}`;
		row('each record written is exported once', mine.length === 1, `${name}: ${mine.length} times`);
		if (mine.length < 1)
			continue;
		const { lr, resource, scope } = mine[0];
		row('event_name = the event\'s name', lr.eventName === (w.cs ? w.cs.name : w.event), `${name}: ${lr.eventName}`);
		row('attribute event.name = the event\'s name', same(attr(lr, 'event.name'), { stringValue: w.cs ? w.cs.name : w.event }),
			`${name}: ${show(attr(lr, 'event.name'))}`);
		// time_unix_nano: the record's wall-clock time (Common Schema: PartA.time)
		const t = BigInt(lr.timeUnixNano || 0);
		if (w.cs) {
			row('Common Schema: time_unix_nano = PartA.time', String(t) === w.cs.timeUnixNano,
				`${name}: ${t} vs ${w.cs.timeUnixNano} (${w.cs.time})`);
		} else {
			const lo = BigInt(w.t0) - 50000000n, hi = BigInt(w.t1) + 50000000n;
			const skew = Number(t - BigInt(w.t0)) / 1e6;
			if (Math.abs(skew) > Math.abs(maxSkew))
				maxSkew = skew;
			row('time_unix_nano = the wall-clock time of the write (within 50 ms)', t >= lo && t <= hi,
				`${name}: ${skew.toFixed(3)} ms from the write`);
		}
		// fields as typed attributes
		for (const [k, type, v] of w.fields) {
			const got = attr(lr, k), want = anyValue(type, v);
			const rowName = w.cs ? 'Common Schema: PartC as attributes' :
				`fields as typed attributes: ${type === 'int' ? 'int_value' : type === 'string' ? 'string_value' :
					type === 'bytes' ? 'bytes_value' : type === 'bool' ? 'bool_value' : 'double_value'}`;
			row(rowName, same(got, want), `${name}.${k}: ${show(got)}, not ${show(want)}`);
		}
		// resource, scope
		const rattr = (k) => ((resource.attributes || []).find((a) => a.key === k) || {}).value;
		row('resource host.name', same(rattr('host.name'), { stringValue: opt.host }), `${name}: ${show(rattr('host.name'))}`);
		row('resource process.pid', same(rattr('process.pid'), { intValue: String(summary.pid) }),
			`${name}: ${show(rattr('process.pid'))}, not ${summary.pid}`);
		row('resource process.executable.name', same(rattr('process.executable.name'), { stringValue: opt.exe }),
			`${name}: ${show(rattr('process.executable.name'))}`);
		row('scope = the event\'s system (user_events)', scope.name === 'user_events', `${name}: ${show(scope)}`);
		// EventHeader: level -> severity; activity ID -> span_id
		if (w.level !== undefined && !w.cs) {
			const sev = { 1: [21, 'FATAL'], 2: [17, 'ERROR'], 3: [13, 'WARN'], 4: [9, 'INFO'], 5: [5, 'DEBUG'] }[w.level];
			row('EventHeader level -> severity_number/severity_text', lr.severityNumber === sev[0] && lr.severityText === sev[1],
				`${name} (level ${w.level}): ${lr.severityNumber} ${show(lr.severityText)}, not ${sev.join(' ')}`);
		}
		if (w.activity && w.activity.endsWith('0000000000000000')) {
			row('EventHeader activity ID of a span (span ID + 8 zero bytes) -> span_id',
				lr.spanId === w.activity.slice(0, 16) && !lr.traceId, `${name}: spanId ${lr.spanId} traceId ${lr.traceId}`);
		} else if (w.activity) {
			const kept = lr.traceId === w.activity ||
				(lr.attributes || []).some((a) => a.value.bytesValue === Buffer.from(w.activity, 'hex').toString('base64') ||
					a.value.stringValue === w.activity);
			row('EventHeader activity ID not of W3C form: not lost, no span_id invented', kept && !lr.spanId,
				`${name}: traceId ${lr.traceId} spanId ${lr.spanId} attributes ${show(lr.attributes)}`);
		} else if (!w.cs) {
			row('no activity ID: no trace_id/span_id', !lr.traceId && !lr.spanId, `${name}: ${lr.traceId} ${lr.spanId}`);
		}
		if (w.cs) {
			row('Common Schema: PartA.ext_dt -> trace_id/span_id', lr.traceId === w.cs.traceId && lr.spanId === w.cs.spanId,
				`${lr.traceId} ${lr.spanId}`);
			row('Common Schema: PartB severityNumber/severityText -> severity', lr.severityNumber === w.cs.severityNumber &&
				lr.severityText === w.cs.severityText, `${lr.severityNumber} ${show(lr.severityText)}`);
			row('Common Schema: PartB body -> body', same(lr.body, { stringValue: w.cs.body }), show(lr.body));
			const leaked = (lr.attributes || []).filter((a) => ['__csver__', 'PartA', 'PartB', 'PartC'].includes(a.key));
			row('Common Schema: the parts are mapped, not copied as attributes', leaked.length === 0,
				leaked.map((a) => a.key).join(', '));
		}
	}
	for (const [r, why] of Object.entries(rows))
		check(why.length === 0, r, `${why.length} wrong: ${why.slice(0, 4).join('; ')}`);
	if (expected.some((w) => !w.cs))
		ok(`largest distance of time_unix_nano from the write: ${maxSkew.toFixed(3)} ms`);
	for (const ev of opt.absent) {
		const n = records(logsReqs).filter(({ lr }) => lr.eventName === ev).length;
		check(n === 0, `${ev} not selected, not exported`, `${n} exported`);
	}

	if (opt.metrics) {
		const want = fs.readFileSync(opt.metrics);
		const got = metricsReqs.filter((r) => answers.has(r.seq) && answers.get(r.seq).status === 200);
		const wm = written.filter((w) => w.event === 'otlp_metrics').length;
		check(wm === 1, 'otlp_metrics written once');
		check(got.length === 1 && Buffer.from(got[0].body, 'base64').equals(want),
			'otlp_metrics forwarded to /v1/metrics byte-identical',
			got.map((r) => `${r.bodyLength} bytes vs ${want.length}`).join(', ') || 'no /v1/metrics request');
		check(got.length === 1 && got[0].decoded && got[0].decoded.resourceMetrics &&
			got[0].decoded.resourceMetrics[0].scopeMetrics[0].metrics.length === 3,
		'otlp_metrics: the forwarded request decodes as the ExportMetricsServiceRequest built');
	}
}

// ---- delivery under faults ----
function delivery() {
	checkRequests();
	const c = counters();
	check(c !== null, 'the exporter printed its counters', stderr.trim().split('\n').slice(-3).join(' | '));
	if (!c)
		return;
	const W = new Set(written.map((w) => String(w.seq)));
	const accepted = logsReqs.filter((r) => answers.has(r.seq) && answers.get(r.seq).status === 200);
	let rejectedByReceiver = 0;
	for (const r of accepted) {
		const a = r.action || '';
		if (a.startsWith('partial:'))
			rejectedByReceiver += Number(a.split(':')[1]);
	}
	const seen = new Map();
	for (const { lr } of records(accepted)) {
		const s = seqOf(lr);
		seen.set(s, (seen.get(s) || 0) + 1);
	}
	const stray = [...seen.keys()].filter((s) => !W.has(s));
	check(stray.length === 0, 'only records written were delivered', stray.slice(0, 5).join(','));
	const dups = [...seen.values()].filter((n) => n > 1).length;
	const delivered = [...seen.keys()].filter((s) => W.has(s)).length;
	const missing = W.size - delivered;
	ok(`written ${W.size} (not taken by the library: ${summary.refused}), delivered ${delivered}` +
		`${dups ? ` (${dups} twice: at least once)` : ''}, not delivered ${missing}, rejected by the receiver ${rejectedByReceiver}; ` +
		`exporter: records ${c.records}, sent ${c.sent}, rejected ${c.rejected}, dropped ${c.dropped} ${show(c.why)}, ` +
		`${c.requests} requests, ${c.retried} retried`);
	check(c.records === W.size, 'every record written reached the exporter (records = written)',
		`${c.records} of ${W.size}: ${W.size - c.records} lost before the exporter, uncounted`);
	check(c.sent + c.rejected + c.dropped === W.size, 'nothing lost uncounted: sent + rejected + dropped = written',
		`${c.sent} + ${c.rejected} + ${c.dropped} = ${c.sent + c.rejected + c.dropped}, not ${W.size}`);
	check(missing <= c.dropped, 'every record not delivered is counted as dropped',
		`${missing} not delivered, ${c.dropped} dropped`);
	check(c.sent === delivered - rejectedByReceiver || (dups > 0 && c.sent <= delivered),
		'sent = what the receiver accepted', `sent ${c.sent}, accepted ${delivered} less ${rejectedByReceiver} rejected`);
	check(c.rejected === rejectedByReceiver, 'rejected = the partial successes\' rejected_log_records',
		`${c.rejected} vs ${rejectedByReceiver}`);
	if (opt.all)
		check(missing === 0 && c.dropped === 0, 'everything delivered, nothing dropped', `${missing} missing, ${c.dropped} dropped`);
	if (opt.rejected !== undefined)
		check(c.rejected === opt.rejected, `rejected ${opt.rejected}`, `${c.rejected}`);
	if (opt.droppedMin !== undefined)
		check(c.dropped >= opt.droppedMin, `dropped at least ${opt.droppedMin}`, `${c.dropped}`);
	if (opt.retriedMin !== undefined)
		check(c.retried >= opt.retriedMin, `retried at least ${opt.retriedMin}`, `${c.retried}`);
	if (opt.retryAfter !== undefined) {
		const ra = log.filter((l) => l.ev === 'answer' && requests.find((r) => r.seq === l.seq && /^status:\d+:\d+$/.test(r.action)));
		check(ra.length > 0, 'an answer with Retry-After was given');
		for (const a of ra) {
			const path = requests.find((r) => r.seq === a.seq).path;
			const next = requests.find((r) => r.seq > a.seq && r.path === path);
			const waited = next ? next.t - a.t : null;
			check(next && waited >= opt.retryAfter * 1000 - 20, `Retry-After: ${opt.retryAfter} honoured`,
				next ? `the next request came ${waited} ms after` : 'no request after it');
			if (next)
				ok(`the next request came ${waited} ms after the Retry-After: ${opt.retryAfter} answer`);
		}
	}
}

if (mode === 'mapping')
	mapping();
else if (mode === 'delivery')
	delivery();
else {
	console.log('usage: check.js mapping|delivery LOG MANIFEST STDERR [options]');
	process.exit(2);
}
process.exitCode = fails ? 1 : 0;
