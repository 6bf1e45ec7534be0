// A minimal MessagePack encoder for the "Record this page" download: the snapshot stored exactly as the
// recorder's corpora store it (export/corpus.py reads both), without shipping a library. JSON values
// only: null, booleans, numbers (integers up to 32 bits compactly, the rest as float64), strings, arrays,
// plain objects (undefined members skipped, as JSON.stringify does).
const utf8 = new TextEncoder();

class Bytes {
  constructor() { this.buf = new Uint8Array(1 << 16); this.view = new DataView(this.buf.buffer); this.n = 0; }
  room(k) {
    if (this.n + k <= this.buf.length) return;
    const bigger = new Uint8Array(Math.max(this.buf.length * 2, this.n + k));
    bigger.set(this.buf.subarray(0, this.n));
    this.buf = bigger;
    this.view = new DataView(bigger.buffer);
  }
  byte(b) { this.room(1); this.buf[this.n++] = b; }
  u16(v) { this.room(2); this.view.setUint16(this.n, v); this.n += 2; }
  u32(v) { this.room(4); this.view.setUint32(this.n, v); this.n += 4; }
  raw(bytes) { this.room(bytes.length); this.buf.set(bytes, this.n); this.n += bytes.length; }
}

function head(out, n, fix, fixMax, c16, c32) {
  if (n <= fixMax) out.byte(fix | n);
  else if (n < 0x10000) { out.byte(c16); out.u16(n); }
  else { out.byte(c32); out.u32(n); }
}

function number(out, v) {
  if (Number.isInteger(v) && v >= 0 && v < 0x100000000) {
    if (v < 0x80) out.byte(v);
    else if (v < 0x100) { out.byte(0xcc); out.byte(v); }
    else if (v < 0x10000) { out.byte(0xcd); out.u16(v); }
    else { out.byte(0xce); out.u32(v); }
  } else if (Number.isInteger(v) && v < 0 && v >= -0x80000000) {
    if (v >= -32) out.byte(v & 0xff);
    else { out.byte(0xd2); out.room(4); out.view.setInt32(out.n, v); out.n += 4; }
  } else {
    out.byte(0xcb); out.room(8); out.view.setFloat64(out.n, v); out.n += 8;
  }
}

function value(out, v) {
  if (v === null || v === undefined) out.byte(0xc0);
  else if (v === false) out.byte(0xc2);
  else if (v === true) out.byte(0xc3);
  else if (typeof v === "number") number(out, v);
  else if (typeof v === "string") {
    const bytes = utf8.encode(v);
    if (bytes.length < 32) out.byte(0xa0 | bytes.length);
    else if (bytes.length < 0x100) { out.byte(0xd9); out.byte(bytes.length); }
    else head(out, bytes.length, 0, -1, 0xda, 0xdb);
    out.raw(bytes);
  } else if (Array.isArray(v)) {
    head(out, v.length, 0x90, 15, 0xdc, 0xdd);
    for (const item of v) value(out, item);
  } else {
    const keys = Object.keys(v).filter((k) => v[k] !== undefined);
    head(out, keys.length, 0x80, 15, 0xde, 0xdf);
    for (const k of keys) { value(out, k); value(out, v[k]); }
  }
}

/** `data` as MessagePack bytes (a Uint8Array). */
export function encode(data) {
  const out = new Bytes();
  value(out, data);
  return out.buf.slice(0, out.n);
}
