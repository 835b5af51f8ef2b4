#!/usr/bin/env node
// SPDX-License-Identifier: LGPL-2.1-or-later
// A loopback OTLP/HTTP receiver for the tests.  It decodes each request
// against the official opentelemetry-proto schema (schema.js), protobuf or
// JSON, gzip or not, and logs it as one JSON line: path, headers, content
// type and encoding, the body (base64, after gzip) and its decoding, the
// answer.  Its faults are chosen per test:
//
//   receiver.js --log FILE --port-file FILE [--start-after S] [--delay MS]
//               [--plan A,B,...] [--then A] [--plan-path PATH]
//
// --start-after S  nothing listens for S seconds (the port is chosen and
//                  reported first), then it listens on it
// --delay MS       every answer waits MS first (a slow receiver)
// --plan A,B,...   the answers to the first requests (to PATH only with
//                  --plan-path), one action each; --then A the answer to
//                  the rest (default ok).  Actions:
//     ok                    200 and an empty response
//     status:CODE[:S]       CODE (429, 503, 400 ...) with a google.rpc.Status
//                           body, and Retry-After: S when S is given
//     partial:N[:MSG]       200 with partial_success: N rejected, MSG
//     partial400:N[:MSG]    400 with a response carrying partial_success
//     slow:MS               200 after MS
//     stall                 never answers (the connection stays open)
//     close                 drops the connection without an answer
//     down:S                drops every connection and stops listening for
//                           S seconds (inf: for good), no answer
// SIGUSR1 takes it down (as down:inf), SIGUSR2 brings it back up.
//
// The port (chosen by the OS, 127.0.0.1 only) is written to the port file
// and printed as "PORT N".  The log has a line {"ev":"request",...} per
// request when its body is in and {"ev":"answer","seq":N,"status":S} when
// it is answered; times are wall-clock milliseconds ("t").
'use strict';
const fs = require('fs');
const http = require('http');
const zlib = require('zlib');
const { services, decodeProto, decodeJson, rpcStatus } = require('./schema.js');

function usage(msg) {
	process.stderr.write(`receiver.js: ${msg}\n`);
	process.exit(2);
}

const opt = { plan: [], then: 'ok', delay: 0, startAfter: 0, planPath: null };
for (let i = 2; i < process.argv.length; i++) {
	const a = process.argv[i], v = process.argv[i + 1];
	if (v === undefined)
		usage(`${a} needs a value`);
	i++;
	if (a === '--log')
		opt.log = v;
	else if (a === '--port-file')
		opt.portFile = v;
	else if (a === '--plan')
		opt.plan = v.split(',').filter((x) => x);
	else if (a === '--then')
		opt.then = v;
	else if (a === '--plan-path')
		opt.planPath = v;
	else if (a === '--delay')
		opt.delay = Number(v);
	else if (a === '--start-after')
		opt.startAfter = Number(v);
	else
		usage(`unknown option ${a}`);
}
if (!opt.log || !opt.portFile)
	usage('--log FILE and --port-file FILE are needed');
for (const a of [...opt.plan, opt.then])
	if (!/^(ok|stall|close|status:\d{3}(:\d+)?|partial(400)?:\d+(:.*)?|slow:\d+|down:(\d+(\.\d+)?|inf))$/.test(a))
		usage(`bad action ${a}`);

const logFd = fs.openSync(opt.log, 'a');
function log(o) {
	fs.writeSync(logFd, JSON.stringify(Object.assign({ t: Date.now() }, o)) + '\n');
}

let seq = 0, planned = 0, port = 0, server = null, downTimer = null;
const sockets = new Set();

function nextAction(path) {
	if (opt.planPath && path !== opt.planPath)
		return 'ok';
	return planned < opt.plan.length ? opt.plan[planned++] : opt.then;
}

function listen() {
	if (server)
		return;
	server = http.createServer(onRequest);
	server.keepAliveTimeout = 30000;
	server.on('connection', (s) => {
		sockets.add(s);
		s.on('close', () => sockets.delete(s));
	});
	server.listen(port, '127.0.0.1', () => {
		port = server.address().port;
		log({ ev: 'up', port });
		report();
	});
}

function down(seconds) {
	if (downTimer)
		clearTimeout(downTimer);
	downTimer = null;
	if (server) {
		server.close();
		server = null;
		for (const s of sockets)
			s.destroy();
		sockets.clear();
		log({ ev: 'down', seconds: seconds === Infinity ? 'inf' : seconds });
	}
	if (seconds !== Infinity)
		downTimer = setTimeout(() => { downTimer = null; listen(); }, seconds * 1000);
}

function answer(res, n, status, type, body, headers) {
	const send = () => {
		if (res.destroyed)
			return;
		// Logged first: whoever reads the log after the answer finds it.
		log({ ev: 'answer', seq: n, status });
		res.writeHead(status, Object.assign({ 'Content-Type': type, 'Content-Length': body.length },
			headers || {}));
		res.end(body);
	};
	if (opt.delay > 0)
		setTimeout(send, opt.delay);
	else
		send();
}

function onRequest(req, res) {
	const chunks = [];
	req.on('data', (c) => chunks.push(c));
	req.on('end', () => {
		const n = ++seq;
		const wire = Buffer.concat(chunks);
		const type = (req.headers['content-type'] || '').split(';')[0].trim();
		const enc = req.headers['content-encoding'] || '';
		const svc = services[req.url];
		const action = nextAction(req.url);
		const entry = {
			ev: 'request', seq: n, method: req.method, path: req.url, headers: req.headers,
			contentType: type, contentEncoding: enc, wireLength: wire.length, action,
		};
		let body = wire, decoded = null, error = null;
		try {
			if (enc === 'gzip')
				body = zlib.gunzipSync(wire);
			else if (enc !== '' && enc !== 'identity')
				throw new Error(`content-encoding ${enc}`);
			if (req.method !== 'POST')
				throw new Error(`method ${req.method}`);
			if (!svc)
				throw new Error(`path ${req.url}`);
			if (type === 'application/x-protobuf')
				decoded = decodeProto(svc.req, body);
			else if (type === 'application/json')
				decoded = decodeJson(svc.req, body.toString('utf8'));
			else
				throw new Error(`content-type ${type}`);
		} catch (e) {
			error = String(e.message || e);
		}
		entry.bodyLength = body.length;
		entry.body = body.toString('base64');
		entry.decoded = decoded;
		entry.error = error;
		log(entry);

		const json = type === 'application/json';
		const rtype = json ? 'application/json' : 'application/x-protobuf';
		if (error) {	// what a Collector does with what it cannot read
			answer(res, n, svc ? 400 : 404, rtype, json ? Buffer.from(JSON.stringify({ code: 3, message: error }))
				: rpcStatus(3, error.slice(0, 100)));
			return;
		}
		const [what, a1, ...rest] = action.split(':');
		const a2 = rest.join(':');
		const respond = (status, partial) => {
			let body;
			if (!partial)
				body = json ? Buffer.from('{}') : Buffer.alloc(0);
			else if (json)
				body = Buffer.from(JSON.stringify({ partialSuccess: partial }));
			else
				body = Buffer.from(svc.resp.encode(svc.resp.fromObject({ partialSuccess: partial })).finish());
			answer(res, n, status, rtype, body);
		};
		switch (what) {
		case 'ok':
			respond(200, null);
			break;
		case 'slow':
			setTimeout(() => respond(200, null), Number(a1));
			break;
		case 'partial':
		case 'partial400':
			respond(what === 'partial' ? 200 : 400,
				{ [svc.rejectedKey]: a1, errorMessage: a2 || `rejected ${a1}` });
			break;
		case 'status': {
			const code = Number(a1), msg = `status ${code} from the test receiver`;
			answer(res, n, code, rtype, json ? Buffer.from(JSON.stringify({ code: 14, message: msg }))
				: rpcStatus(14, msg), a2 ? { 'Retry-After': a2 } : null);
			break;
		}
		case 'stall':
			break;
		case 'close':
			req.socket.destroy();
			log({ ev: 'closed', seq: n });
			break;
		case 'down':
			down(a1 === 'inf' ? Infinity : Number(a1));
			break;
		}
	});
}

// Alive while down with nothing pending, until SIGTERM.
setInterval(() => {}, 1 << 30);
process.on('SIGUSR1', () => down(Infinity));
process.on('SIGUSR2', () => listen());
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));

let reported = false;
function report() {
	if (reported)
		return;
	reported = true;
	const tmp = `${opt.portFile}.tmp`;
	fs.writeFileSync(tmp, `${port}\n`);
	fs.renameSync(tmp, opt.portFile);
	process.stdout.write(`PORT ${port}\n`);
}

// The port: the OS's choice.  Reported once it listens, or with
// --start-after before: nothing listens on it until then.
if (opt.startAfter > 0) {
	const probe = http.createServer();
	probe.listen(0, '127.0.0.1', () => {
		port = probe.address().port;
		probe.close(() => {
			report();
			downTimer = setTimeout(() => { downTimer = null; listen(); }, opt.startAfter * 1000);
		});
	});
} else {
	listen();
}
