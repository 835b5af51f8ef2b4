#!/usr/bin/env node
// SPDX-License-Identifier: LGPL-2.1-or-later
// Builds OTLP requests with the official schema (schema.js) and posts them:
//   otlp-tool.js metrics FILE        an ExportMetricsServiceRequest (gauge,
//                                    sum, histogram), protobuf, into FILE
//   otlp-tool.js logs FILE           an ExportLogsServiceRequest, protobuf
//   otlp-tool.js post URL FILE [--json] [--gzip] [--header K=V]...
//                                    POST FILE (protobuf; --json: as OTLP/JSON)
//                                    to URL; prints the status, Retry-After
//                                    and the answer (decoded when 200) as
//                                    one JSON line
'use strict';
const fs = require('fs');
const http = require('http');
const zlib = require('zlib');
const { pb, services, toJson } = require('./schema.js');

const M = pb.collector.metrics.v1.ExportMetricsServiceRequest;
const L = pb.collector.logs.v1.ExportLogsServiceRequest;

const resource = {
	attributes: [
		{ key: 'service.name', value: { stringValue: 'otlp-test' } },
		{ key: 'host.name', value: { stringValue: 'test-host' } },
	],
};

function metrics() {
	const t = '1764860000000000000', t0 = '1764859990000000000';
	const attrs = [{ key: 'cpu', value: { intValue: 3 } }];
	return M.encode(M.fromObject({
		resourceMetrics: [{
			resource,
			scopeMetrics: [{
				scope: { name: 'otlp-test-meter', version: '1.0' },
				metrics: [
					{ name: 'queue.depth', unit: '{item}', gauge: { dataPoints: [
						{ timeUnixNano: t, asInt: '-42', attributes: attrs }] } },
					{ name: 'bytes.sent', unit: 'By', sum: { aggregationTemporality: 2, isMonotonic: true,
						dataPoints: [{ startTimeUnixNano: t0, timeUnixNano: t, asDouble: 1.5e9 }] } },
					{ name: 'latency', unit: 'ms', histogram: { aggregationTemporality: 1, dataPoints: [
						{ startTimeUnixNano: t0, timeUnixNano: t, count: 6, sum: 73.5,
							bucketCounts: [1, 2, 3], explicitBounds: [5, 25], min: 0.5, max: 40 }] } },
				],
			}],
		}],
	})).finish();
}

function logs() {
	return L.encode(L.fromObject({
		resourceLogs: [{
			resource,
			scopeLogs: [{
				scope: { name: 'user_events' },
				logRecords: [{
					timeUnixNano: '1764860000123456789', severityNumber: 9, severityText: 'INFO',
					eventName: 'Sample', traceId: Buffer.alloc(16, 0xab), spanId: Buffer.alloc(8, 0xcd),
					body: { stringValue: 'hello' },
					attributes: [
						{ key: 'event.name', value: { stringValue: 'Sample' } },
						{ key: 'n', value: { intValue: '-9000000000' } },
						{ key: 'b', value: { bytesValue: Buffer.from([0, 1, 254, 255]) } },
					],
				}],
			}],
		}],
	})).finish();
}

function post(url, file, flags) {
	const u = new URL(url);
	const svc = services[u.pathname];
	let body = fs.readFileSync(file), type = 'application/x-protobuf';
	if (flags.json) {
		body = Buffer.from(JSON.stringify(toJson(svc.req, svc.req.decode(body))));
		type = 'application/json';
	}
	const headers = Object.assign({ 'Content-Type': type }, flags.headers);
	if (flags.gzip) {
		body = zlib.gzipSync(body);
		headers['Content-Encoding'] = 'gzip';
	}
	headers['Content-Length'] = body.length;
	const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST',
		headers, timeout: flags.timeout || 5000 }, (res) => {
		const chunks = [];
		res.on('data', (c) => chunks.push(c));
		res.on('end', () => {
			const b = Buffer.concat(chunks);
			// Only a 200's body is an Export*ServiceResponse (an error's is a
			// google.rpc.Status, or the receiver's partial400 fault): base64.
			let decoded = b.length ? { base64: b.toString('base64') } : null;
			if (res.statusCode === 200) {
				try {
					decoded = (res.headers['content-type'] || '').startsWith('application/json')
						? JSON.parse(b.toString()) : toJson(svc.resp, svc.resp.decode(b));
				} catch (e) {
					decoded = { undecodable: String(e.message) };
				}
			}
			console.log(JSON.stringify({ status: res.statusCode, contentType: res.headers['content-type'],
				retryAfter: res.headers['retry-after'] || null, decoded }));
		});
	});
	req.on('timeout', () => { console.log(JSON.stringify({ error: 'timeout' })); req.destroy(); });
	req.on('error', (e) => { if (!req.destroyed || e.code !== 'ECONNRESET' || !req.timedOut)
		console.log(JSON.stringify({ error: e.code || e.message })); });
	req.end(body);
}

const [cmd, a, b, ...rest] = process.argv.slice(2);
if (cmd === 'metrics' && a)
	fs.writeFileSync(a, metrics());
else if (cmd === 'logs' && a)
	fs.writeFileSync(a, logs());
else if (cmd === 'post' && a && b) {
	const flags = { headers: {} };
	for (let i = 0; i < rest.length; i++) {
		if (rest[i] === '--json')
			flags.json = true;
		else if (rest[i] === '--gzip')
			flags.gzip = true;
		else if (rest[i] === '--header') {
			const [k, ...v] = rest[++i].split('=');
			flags.headers[k] = v.join('=');
		} else if (rest[i] === '--timeout')
			flags.timeout = Number(rest[++i]);
	}
	post(a, b, flags);
} else {
	process.stderr.write('usage: otlp-tool.js metrics|logs FILE | post URL FILE [--json] [--gzip] ' +
		'[--header K=V] [--timeout MS]\n');
	process.exit(2);
}
