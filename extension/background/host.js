// The browser's side of protocol v1 (docs/protocol.md): one long-lived native port, request ids, chunk
// reassembly, progress notes and timeouts. native_host/browser/client.py is the same logic in Python.
//
// One port serves every request, so the model loads once per browser session. When the port closes
// (host missing, crashed, killed), every pending request fails with the reason mapped to a fix, and the
// next request opens a fresh port. A request that times out closes the port too: a stuck host is ended
// rather than left to answer late.
import "../limits.js";
import { PithFailure, disconnectFailure } from "./errors.js";
import { snapshotFromJson } from "./rows.js";

const L = globalThis.PITH_LIMITS;

export class HostClient {
  /** `connect(name)` returns a Port (runtime.connectNative, or a fake in tests). */
  constructor(connect, name = L.HOST_NAME) {
    this.connect = connect;
    this.name = name;
    this.port = null;
    this.nextId = 1;
    this.pending = new Map();  // id -> {resolve, reject, timer, timeoutMs, onProgress, onPart, chunks}
    this.hello = null;         // the hello reply of the current port
    this.helloing = null;      // {port, asked}: the hello in flight on that port
  }

  _open() {
    if (this.port) return this.port;
    let port;
    try {
      port = this.connect(this.name);
    } catch (error) {
      throw disconnectFailure(error && error.message);
    }
    port.onMessage.addListener((message) => this._receive(port, message));
    port.onDisconnect.addListener((p) => {
      const runtime = (globalThis.browser ?? globalThis.chrome)?.runtime;
      const reason = (p && p.error && p.error.message) || (runtime && runtime.lastError && runtime.lastError.message);
      this._closed(port, disconnectFailure(reason));
    });
    this.port = port;
    this.hello = null;
    return port;
  }

  _closed(port, failure) {
    if (this.port !== port) return;
    this.port = null;
    this.hello = null;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) {
      clearTimeout(p.timer);
      p.reject(failure);
    }
  }

  /** Close the port (ending the host process) and fail what is pending with `failure`. */
  reset(failure = new PithFailure("host_crashed", "closed by the extension")) {
    const port = this.port;
    if (!port) return;
    this._closed(port, failure);
    try {
      port.disconnect();
    } catch { /* already gone */ }
  }

  _arm(id) {
    const p = this.pending.get(id);
    clearTimeout(p.timer);
    p.timer = setTimeout(() => {
      const seconds = Math.round(p.timeoutMs / 1000);
      this.reset(new PithFailure("host_timeout", `no answer within ${seconds} s`));
    }, p.timeoutMs);
  }

  _receive(port, message) {
    if (port !== this.port || !message || typeof message !== "object") return;
    const id = message.id;
    if (id === null && message.type === "error") {
      // The host could not read a request's id: nothing to pair it with, so every pending one is in doubt.
      this.reset(new PithFailure(message.error?.code || "host_protocol", message.error?.message));
      return;
    }
    const p = this.pending.get(id);
    if (!p) return;  // a late answer to a request already given up
    if (message.type === "chunk") {
      this._chunk(id, p, message);
      return;
    }
    if (message.type === "progress") {
      this._arm(id);  // the host is alive and working: the timeout counts from its last sign of life
      if (p.onProgress) p.onProgress({ stage: message.stage, done: message.done, total: message.total });
      return;
    }
    this._deliver(id, p, message);
  }

  /** A whole reply message (a frame, or chunks joined): a `part` goes to the request's onPart and the
   * request stays pending; an error, result or hello settles it. */
  _deliver(id, p, message) {
    if (message.type === "part") {
      this._arm(id);
      try {
        if (p.onPart) p.onPart(message);
      } catch (error) {
        console.warn(`pith: handling the first part of reply ${id} failed: ${error && error.message}`);
      }
      return;
    }
    if (message.type === "error" || message.type === "result" || message.type === "hello") {
      this._settle(id, p, message);
    }
    // any other type for a pending id is a note this extension does not know: ignored (docs/protocol.md)
  }

  _chunk(id, p, message) {
    const { seq, count, data } = message;
    const chunks = p.chunks || (p.chunks = { count, parts: [] });
    if (seq !== chunks.parts.length || count !== chunks.count || typeof data !== "string") {
      this.reset(new PithFailure("host_protocol", `chunk ${seq} of ${count} arrived after ${chunks.parts.length}`));
      return;
    }
    chunks.parts.push(data);
    this._arm(id);
    if (p.onProgress) p.onProgress({ stage: "receiving", done: chunks.parts.length, total: count });
    if (chunks.parts.length < count) return;
    p.chunks = null;  // a part's chunks may be followed by the result's, from seq 0 again
    let reply;
    try {
      reply = JSON.parse(chunks.parts.join(""));
    } catch (error) {
      this.reset(new PithFailure("host_protocol", `reassembled reply is not JSON (${error.message})`));
      return;
    }
    this._deliver(id, p, reply);
  }

  _settle(id, p, reply) {
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (reply.type === "error") {
      const error = reply.error || {};
      p.reject(new PithFailure(error.code || "internal", error.message || ""));
    } else {
      p.resolve(reply);
    }
  }

  /** Send one request; resolves with its reply, rejects with a PithFailure. `onPart(part)` receives a `part`
   * sent ahead of the reply (docs/protocol.md). */
  request(type, fields = {}, { timeoutMs = L.EXTRACT_TIMEOUT_MS, onProgress = null, onPart = null } = {}) {
    return new Promise((resolve, reject) => {
      let port;
      try {
        port = this._open();
      } catch (failure) {
        reject(failure);
        return;
      }
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject, timer: null, timeoutMs, onProgress, onPart, chunks: null });
      this._arm(id);
      try {
        port.postMessage({ v: 1, id, type, ...fields });
      } catch (error) {
        // Chromium throws here when the port closed in between; onDisconnect carries the reason.
        this._closed(port, disconnectFailure(error && error.message));
      }
    });
  }

  /** `hello` once per port: checks the host and its model before the first page is sent. */
  async ready(onProgress) {
    if (this.hello && this.port) return this.hello;
    // One hello at a time: a click while the host is being started ahead of it waits for that start.
    if (!this.helloing || this.helloing.port !== this.port || !this.port) {
      const asked = this.request("hello", {}, { timeoutMs: L.HELLO_TIMEOUT_MS, onProgress });
      this.helloing = { port: this.port, asked };
      asked.then(() => {}, () => {}).then(() => {
        if (this.helloing && this.helloing.asked === asked) this.helloing = null;
      });
    }
    const hello = await this.helloing.asked;
    if (hello.model_error) throw new PithFailure(hello.model_error.code || "model_unavailable", hello.model_error.message);
    this.hello = hello;
    return hello;
  }

  /** Extract the snapshot whose JSON text is `snapshotJson` (its nodes as rows: content/snapshot.js); `want` as
   * in docs/protocol.md. A host older than this extension is still served: the text goes as it is
   * (`snapshot_json`) only to a host whose hello says it reads it and its rows (`snapshot_rows`), else with
   * the rows turned back into nodes, as text or parsed; an `outline` it does not offer is made from its `blocks` (every main block
   * outlined as body text). `first` (some of `want`) asks a host that offers it for those fields ahead of the
   * rest, handed to `onFirst(part)`; a host that does not sends the whole reply, and `onFirst` is not called.
   * Either way the promise resolves with the whole reply. */
  async extract(snapshotJson, want, { onProgress = null, snapshotBytes = 0, first = [], onFirst = null,
                                     selection = [] } = {}) {
    const hello = await this.ready(onProgress);
    const timeoutMs = L.EXTRACT_TIMEOUT_MS + L.EXTRACT_TIMEOUT_MS_PER_MB * (snapshotBytes / 1e6);
    const fields = hello.snapshot_json !== true ? { snapshot: snapshotFromJson(snapshotJson) }
      : { snapshot_json: hello.snapshot_rows === true ? snapshotJson : JSON.stringify(snapshotFromJson(snapshotJson)) };
    if (selection.length) fields.selection = selection;  // the body of these nodes' blocks alone (a saved selection)
    const outlined = !want.includes("outline") || (Array.isArray(hello.wants) && hello.wants.includes("outline"));
    if (outlined) {
      if (first.length && onFirst && hello.first === true) {
        let part = null;
        const onPart = (message) => {
          part = message;
          onFirst(message);
        };
        const rest = await this.request("extract", { ...fields, want, first }, { timeoutMs, onProgress, onPart });
        return part ? joinParts(part, rest) : rest;
      }
      return this.request("extract", { ...fields, want }, { timeoutMs, onProgress });
    }
    const older = want.map((w) => (w === "outline" ? "highlight" : w));
    const reply = await this.request("extract", { ...fields, want: older }, { timeoutMs, onProgress });
    reply.outline = (reply.blocks || []).filter((b) => b.main).map((b) => ({ node_ids: b.node_ids, kind: "main" }));
    return reply;
  }
}

/** The whole reply from its `part` and the rest: the part's fields, the rest's, and both articles' fields. */
export function joinParts(part, rest) {
  return { ...part, ...rest, article: { ...(part.article || {}), ...(rest.article || {}) } };
}

/** The UTF-8 size of the `extract` request carrying `snapshotJson` (`bytes` of UTF-8) as `snapshot_json`,
 * which the host's cap (MAX_REQUEST_BYTES) counts, when it is over that cap; else null. Written into the
 * request, the text grows by a byte for each `"` and `\` (escaped); it holds no control character or lone
 * surrogate, which JSON.stringify has escaped already. As no byte more than doubles, a text under half the
 * cap is not counted. */
export function requestOverCap(snapshotJson, bytes, want) {
  const envelope = JSON.stringify({ v: 1, id: Number.MAX_SAFE_INTEGER, type: "extract", snapshot_json: "", want }).length;
  if (envelope + 2 * bytes <= L.MAX_REQUEST_BYTES) return null;
  const size = envelope + bytes + JSON.stringify(snapshotJson).length - snapshotJson.length - 2;
  return size > L.MAX_REQUEST_BYTES ? size : null;
}
