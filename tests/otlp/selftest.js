#!/usr/bin/env node
// SPDX-License-Identifier: LGPL-2.1-or-later
// The test receiver itself (TAP): requests built with the official schema,
// as protobuf and OTLP/JSON, gzip or not, are decoded and logged whole;
// what the schema does not know is refused; each fault mode answers as it
// says (status and Retry-After, partial success, slow, stalled, closed,
// down mid-stream and back, down at start, SIGUSR1/SIGUSR2).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const zlib = require('zlib');
const { spawn } = require('child_process');
const { pb, services, toJson } = require('./schema.js');

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ue-otlp-self.'));
let n = 0, failed = 0;
const kids = [];
function ok(cond, what, detail) {
	n++;
	if (!cond)
		failed++;
	console.log(`${cond ? 'ok' : 'not ok'} ${n} - ${what}${!cond && detail ? ` # ${detail}` : ''}`);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function receiver(name, args) {
	const log = path.join(work, `${name}.log`), portFile = path.join(work, `${name}.port`);
	const p = spawn(process.execPath, [path.join(__dirname, 'receiver.js'), '--log', log,
		'--port-file', portFile, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
	kids.push(p);
	for (let i = 0; i < 200 && !fs.existsSync(portFile); i++)
		await sleep(25);
	const port = Number(fs.readFileSync(portFile, 'utf8'));
	return {
		url: `http://127.0.0.1:${port}`, proc: p,
		lines: () => fs.readFileSync(log, 'utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l)),
		requests() { return this.lines().filter((l) => l.ev === 'request'); },
		stop: () => p.kill('SIGTERM'),
	};
}

// POST body to url; resolves { status, headers, body, ms } or { error, ms }.
function post(url, body, headers, timeout) {
	const t0 = Date.now();
	return new Promise((resolve) => {
		const u = new URL(url);
		const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST',
			headers: Object.assign({ 'Content-Length': body.length }, headers), agent: false }, (res) => {
			const chunks = [];
			res.on('data', (c) => chunks.push(c));
			res.on('end', () => resolve({ status: res.statusCode, headers: res.headers,
				body: Buffer.concat(chunks), ms: Date.now() - t0 }));
		});
		req.setTimeout(timeout || 5000, () => { req.destroy(new Error('timeout')); });
		req.on('error', (e) => resolve({ error: e.code || e.message, ms: Date.now() - t0 }));
		req.end(body);
	});
}
// Post until an answer comes (up to ms): the first answer, or the last error.
async function postUntil(url, body, headers, ms) {
	const end = Date.now() + ms;
	for (;;) {
		const a = await post(url, body, headers);
		if (a.status || Date.now() > end)
			return a;
		await sleep(50);
	}
}
const PROTO = { 'Content-Type': 'application/x-protobuf' };
const JSONT = { 'Content-Type': 'application/json' };

const L = services['/v1/logs'], Mt = services['/v1/metrics'];
const logsObj = {
	resourceLogs: [{
		resource: { attributes: [{ key: 'host.name', value: { stringValue: 'h' } }] },
		scopeLogs: [{
			scope: { name: 'user_events' },
			logRecords: [{
				timeUnixNano: '1764860000123456789', severityNumber: 13, severityText: 'WARN',
				eventName: 'Ev', traceId: Buffer.from('0102030405060708090a0b0c0d0e0f10', 'hex'),
				spanId: Buffer.from('1112131415161718', 'hex'),
				attributes: [
					{ key: 'i', value: { intValue: '-9000000000' } },
					{ key: 's', value: { stringValue: 'str' } },
					{ key: 'b', value: { bytesValue: Buffer.from([0, 255]) } },
				],
			}],
		}],
	}],
};
const logsPb = Buffer.from(L.req.encode(L.req.fromObject(logsObj)).finish());
const logsJson = toJson(L.req, L.req.decode(logsPb));
const metricsPb = Buffer.from(Mt.req.encode(Mt.req.fromObject({ resourceMetrics: [{ scopeMetrics: [{
	metrics: [{ name: 'm', gauge: { dataPoints: [{ timeUnixNano: '5', asInt: '7' }] } }] }] }] })).finish());

async function main() {
	console.log('TAP version 13');

	// ---- decoding, logging ----
	let r = await receiver('decode', []);
	let a = await post(`${r.url}/v1/logs`, logsPb, Object.assign({ Authorization: 'Bearer t0k' }, PROTO));
	ok(a.status === 200 && a.headers['content-type'] === 'application/x-protobuf' &&
		L.resp.decode(a.body).partialSuccess === null, 'protobuf: 200, an empty protobuf response',
		JSON.stringify(a));
	a = await post(`${r.url}/v1/logs`, Buffer.from(JSON.stringify(logsJson)), JSONT);
	ok(a.status === 200 && a.headers['content-type'] === 'application/json', 'JSON: 200, a JSON response');
	a = await post(`${r.url}/v1/logs`, zlib.gzipSync(Buffer.from(JSON.stringify(logsJson))),
		Object.assign({ 'Content-Encoding': 'gzip' }, JSONT));
	ok(a.status === 200, 'gzip JSON: 200');
	a = await post(`${r.url}/v1/metrics`, zlib.gzipSync(metricsPb), Object.assign({ 'Content-Encoding': 'gzip' }, PROTO));
	ok(a.status === 200, 'gzip protobuf metrics: 200');
	let q = r.requests();
	const rec = q[0] && q[0].decoded && q[0].decoded.resourceLogs[0].scopeLogs[0].logRecords[0];
	ok(q.length === 4 && q.every((x) => x.error === null), 'four requests logged, decoded', JSON.stringify(q.map((x) => x.error)));
	ok(rec && rec.eventName === 'Ev' && rec.timeUnixNano === '1764860000123456789' && rec.severityNumber === 13 &&
		rec.traceId === '0102030405060708090a0b0c0d0e0f10' && rec.spanId === '1112131415161718' &&
		JSON.stringify(rec.attributes) === '[{"key":"i","value":{"intValue":"-9000000000"}},' +
		'{"key":"s","value":{"stringValue":"str"}},{"key":"b","value":{"bytesValue":"AP8="}}]',
	'the log record decoded as OTLP/JSON (hex IDs, int64 as a string, bytes as base64)', JSON.stringify(rec));
	ok(q[0] && q[0].headers.authorization === 'Bearer t0k' && q[0].contentType === 'application/x-protobuf',
		'headers and content type logged');
	ok(q[1] && JSON.stringify(q[1].decoded) === JSON.stringify(q[0].decoded) &&
		JSON.stringify(q[2].decoded) === JSON.stringify(q[0].decoded), 'JSON and gzip JSON decode to the same record');
	ok(q[3] && q[3].contentEncoding === 'gzip' && q[3].path === '/v1/metrics' &&
		Buffer.from(q[3].body, 'base64').equals(metricsPb) && q[3].decoded.resourceMetrics[0].scopeMetrics[0].metrics[0].name === 'm',
	'metrics: the body after gzip logged byte for byte, decoded');

	// ---- strict: what the schema does not know is refused (400, logged with the error) ----
	const unknown = Buffer.concat([logsPb, Buffer.from([0xf8, 0x07, 0x01])]);	// field 127, varint
	a = await post(`${r.url}/v1/logs`, unknown, PROTO);
	ok(a.status === 400, 'protobuf with an unknown field: 400');
	const wrongType = Buffer.from(logsPb);
	// the first LogRecord field inside: time_unix_nano (1, fixed64) rewritten as
	// a varint would shift everything: instead, send a truncated body
	a = await post(`${r.url}/v1/logs`, wrongType.subarray(0, wrongType.length - 3), PROTO);
	ok(a.status === 400, 'a truncated protobuf: 400');
	const snake = JSON.stringify(logsJson).replace('"timeUnixNano"', '"time_unix_nano"');
	a = await post(`${r.url}/v1/logs`, Buffer.from(snake), JSONT);
	ok(a.status === 400, 'JSON with a snake_case key: 400');
	const enumName = JSON.stringify(logsJson).replace('"severityNumber":13', '"severityNumber":"SEVERITY_NUMBER_WARN"');
	a = await post(`${r.url}/v1/logs`, Buffer.from(enumName), JSONT);
	ok(a.status === 400, 'JSON with an enum by name: 400');
	const b64Id = JSON.stringify(logsJson).replace('"0102030405060708090a0b0c0d0e0f10"', '"AQIDBAUGBwgJCgsMDQ4PEA=="');
	a = await post(`${r.url}/v1/logs`, Buffer.from(b64Id), JSONT);
	ok(a.status === 400, 'JSON with a base64 trace ID: 400');
	a = await post(`${r.url}/v1/logs`, logsPb, { 'Content-Type': 'text/plain' });
	ok(a.status === 400, 'a content type not OTLP\'s: 400');
	a = await post(`${r.url}/v1/nothing`, logsPb, PROTO);
	ok(a.status === 404, 'an unknown path: 404');
	q = r.requests();
	ok(q.length === 11 && q.slice(4).every((x) => x.error && x.decoded === null), 'the refused ones logged with their errors',
		JSON.stringify(q.slice(4).map((x) => x.error)));
	r.stop();

	// ---- answers ----
	r = await receiver('plan', ['--plan', 'status:429:2,status:503,partial:3:too old,partial400:2,slow:700,close,stall',
		'--plan-path', '/v1/logs']);
	a = await post(`${r.url}/v1/metrics`, metricsPb, PROTO);
	ok(a.status === 200, '--plan-path: metrics not planned: 200');
	a = await post(`${r.url}/v1/logs`, logsPb, PROTO);
	ok(a.status === 429 && a.headers['retry-after'] === '2', '429 with Retry-After: 2', JSON.stringify(a.headers));
	a = await post(`${r.url}/v1/logs`, logsPb, PROTO);
	ok(a.status === 503 && !('retry-after' in a.headers), '503 without Retry-After');
	a = await post(`${r.url}/v1/logs`, logsPb, PROTO);
	let ps = a.status === 200 && L.resp.decode(a.body).partialSuccess;
	ok(ps && String(ps.rejectedLogRecords) === '3' && ps.errorMessage === 'too old', '200 with partial success: 3 rejected');
	a = await post(`${r.url}/v1/logs`, Buffer.from(JSON.stringify(logsJson)), JSONT);
	ok(a.status === 400 && JSON.parse(a.body).partialSuccess.rejectedLogRecords === '2',
		'400 with partial success, JSON', a.body.toString());
	a = await post(`${r.url}/v1/logs`, logsPb, PROTO);
	ok(a.status === 200 && a.ms >= 650, `slow: answered after ${a.ms} ms (700)`);
	a = await post(`${r.url}/v1/logs`, logsPb, PROTO);
	ok(a.error && a.ms < 2000, `close: no answer, the connection dropped (${a.error})`);
	a = await post(`${r.url}/v1/logs`, logsPb, PROTO, 1500);
	ok(a.error === 'timeout' && a.ms >= 1400, `stall: no answer in ${a.ms} ms`);
	a = await post(`${r.url}/v1/logs`, logsPb, PROTO);
	ok(a.status === 200, 'then: ok');
	q = r.lines();
	const answered = q.filter((x) => x.ev === 'answer').map((x) => x.status).join(',');
	ok(answered === '200,429,503,200,400,200,200', `answers logged: ${answered}`);
	r.stop();

	// ---- down mid-stream, back after 1 s; SIGUSR1/SIGUSR2 ----
	r = await receiver('down', ['--plan', 'ok,down:1']);
	a = await post(`${r.url}/v1/logs`, logsPb, PROTO);
	const b = await post(`${r.url}/v1/logs`, logsPb, PROTO);
	const c = await post(`${r.url}/v1/logs`, logsPb, PROTO);
	ok(a.status === 200 && b.error && c.error === 'ECONNREFUSED', `down:1: the request that took it down got ${b.error}, the next ${c.error}`);
	a = await postUntil(`${r.url}/v1/logs`, logsPb, PROTO, 10000);
	let ev = r.lines(), dn = ev.find((x) => x.ev === 'down'), up = ev.filter((x) => x.ev === 'up')[1];
	ok(a.status === 200 && dn && up && up.t - dn.t >= 1000, `up again ${up && dn ? up.t - dn.t : '?'} ms after down:1`);
	r.proc.kill('SIGUSR1');
	for (let i = 0; i < 100 && r.lines().filter((x) => x.ev === 'down').length < 2; i++)
		await sleep(50);
	a = await post(`${r.url}/v1/logs`, logsPb, PROTO);
	ok(a.error === 'ECONNREFUSED', 'SIGUSR1: down', JSON.stringify(a));
	r.proc.kill('SIGUSR2');
	a = await postUntil(`${r.url}/v1/logs`, logsPb, PROTO, 10000);
	ok(a.status === 200, 'SIGUSR2: up', JSON.stringify(a));
	r.stop();

	// ---- down at start ----
	r = await receiver('late', ['--start-after', '1.5']);
	const reported = Date.now();
	a = await post(`${r.url}/v1/logs`, logsPb, PROTO);
	ok(a.error === 'ECONNREFUSED', '--start-after: the port is reported, nothing listens');
	a = await postUntil(`${r.url}/v1/logs`, logsPb, PROTO, 10000);
	up = r.lines().find((x) => x.ev === 'up');
	ok(a.status === 200 && up && up.t - reported >= 1300, `--start-after 1.5: listening ${up ? up.t - reported : '?'} ms after the port was reported`);
	r.stop();

	console.log(`1..${n}`);
}

main().catch((e) => { ok(false, `exception: ${e.stack}`); console.log(`1..${n}`); }).finally(() => {
	for (const k of kids)
		k.kill('SIGKILL');
	fs.rmSync(work, { recursive: true, force: true });
	process.exitCode = failed ? 1 : 0;
});
