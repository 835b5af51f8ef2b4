// SPDX-License-Identifier: LGPL-2.1-or-later
// The official OTLP schema for the tests: the protobufjs code generated from
// opentelemetry-proto that @opentelemetry/otlp-transformer ships (pinned in
// package-lock.json, installed by scripts/install-deps with npm ci; never
// copied into the repository).  Also the OTLP/JSON mapping of it: lowerCamelCase
// keys, trace and span IDs as hex, enums as integers, 64-bit integers as
// decimal strings or numbers, other bytes as base64.
'use strict';
const fs = require('fs');
const path = require('path');

const GEN = path.join(__dirname, 'node_modules', '@opentelemetry', 'otlp-transformer',
	'build', 'src', 'generated', 'root.js');
if (!fs.existsSync(GEN)) {
	process.stderr.write(`otlp schema: ${GEN} is missing: run scripts/install-deps ` +
		'(npm ci in tests/otlp)\n');
	process.exit(99);
}
const root = require(GEN);
const { Writer } = require(path.join(__dirname, 'node_modules', 'protobufjs', 'minimal'));
const pb = root.opentelemetry.proto;

const services = {
	'/v1/logs': {
		req: pb.collector.logs.v1.ExportLogsServiceRequest,
		resp: pb.collector.logs.v1.ExportLogsServiceResponse,
		rejectedKey: 'rejectedLogRecords',
	},
	'/v1/metrics': {
		req: pb.collector.metrics.v1.ExportMetricsServiceRequest,
		resp: pb.collector.metrics.v1.ExportMetricsServiceResponse,
		rejectedKey: 'rejectedDataPoints',
	},
	'/v1/traces': {
		req: pb.collector.trace.v1.ExportTraceServiceRequest,
		resp: pb.collector.trace.v1.ExportTraceServiceResponse,
		rejectedKey: 'rejectedSpans',
	},
};

// The bytes fields OTLP/JSON writes as hex instead of base64.
const HEX_KEYS = new Set(['traceId', 'spanId', 'parentSpanId']);

const TO_OBJECT = { longs: String, enums: Number, bytes: String, defaults: false };

function mapHex(v, conv) {
	if (Array.isArray(v))
		return v.map((x) => mapHex(x, conv));
	if (v === null || typeof v !== 'object')
		return v;
	const o = {};
	for (const [k, x] of Object.entries(v))
		o[k] = HEX_KEYS.has(k) && typeof x === 'string' ? conv(x) : mapHex(x, conv);
	return o;
}
const b64ToHex = (s) => Buffer.from(s, 'base64').toString('hex');
function hexToB64(s) {
	if (!/^([0-9a-fA-F]{2})*$/.test(s))
		throw new Error(`not hex: ${JSON.stringify(s)}`);
	return Buffer.from(s, 'hex').toString('base64');
}

// A message as OTLP/JSON (what the log of the receiver holds).
function toJson(T, msg) {
	return mapHex(T.toObject(msg, TO_OBJECT), b64ToHex);
}

// Decode a protobuf body; strict: bytes the schema does not account for
// (unknown fields, wrong wire types) change the size of its re-encoding.
function decodeProto(T, buf) {
	const msg = T.decode(buf);
	const again = T.encode(msg).finish();
	if (again.length !== buf.length)
		throw new Error(`${buf.length} bytes, of which the schema re-encodes ${again.length}: ` +
			'fields the schema does not know or of the wrong type');
	return toJson(T, msg);
}

// Where two OTLP/JSON values differ ('' when they do not).
function diff(a, b, where) {
	if (typeof a === 'number' && typeof b === 'string' && String(a) === b)
		return '';
	if (Array.isArray(a) || Array.isArray(b)) {
		if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length)
			return `${where}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`;
		for (let i = 0; i < a.length; i++) {
			const d = diff(a[i], b[i], `${where}[${i}]`);
			if (d)
				return d;
		}
		return '';
	}
	if (a && b && typeof a === 'object' && typeof b === 'object') {
		for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
			if (!(k in b))
				return `${where}.${k}: not in the schema (or not of its type)`;
			if (!(k in a))
				return `${where}.${k}: appeared in the round trip`;
			const d = diff(a[k], b[k], `${where}.${k}`);
			if (d)
				return d;
		}
		return '';
	}
	return a === b ? '' : `${where}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`;
}

// Decode an OTLP/JSON body; strict: every key must be a field of the
// schema, in lowerCamelCase, of its type (the round trip through the schema
// must give back the same document).
function decodeJson(T, text) {
	const doc = JSON.parse(text);
	const msg = T.fromObject(mapHex(doc, hexToB64));
	const back = toJson(T, T.decode(T.encode(msg).finish()));
	const d = diff(doc, back, '$');
	if (d)
		throw new Error(`OTLP/JSON not of the schema: ${d}`);
	return back;
}

// google.rpc.Status { int32 code = 1; string message = 2; }: the body of an
// error answer (not an OTLP message, so written field by field).
function rpcStatus(code, message) {
	return Buffer.from(Writer.create().uint32(8).int32(code).uint32(18).string(message).finish());
}

module.exports = { pb, services, decodeProto, decodeJson, toJson, rpcStatus };
