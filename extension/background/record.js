// "Record this page" (a developer option): the live snapshot, exactly as the host would receive it, saved as
// a one-record .msgpack file ({id, snapshot, recorded, version}) the user can attach to a bug report.
// `pith extract --snapshot FILE.msgpack` replays it through the host's own extract path.
import { encode } from "./msgpack.js";
import { download, safeFilename } from "./save.js";
import { takeSnapshot } from "./page.js";
import { snapshotFromJson } from "./rows.js";

const api = globalThis.browser ?? globalThis.chrome;

/** The download for one snapshot: {filename, mime, content (bytes)}. The name comes from the page's title
 * through the same safe-filename rule as Save. */
export function recordDocument(snapshot, recordedAt = new Date()) {
  const record = { id: snapshot.url || "page", snapshot, recorded: recordedAt.toISOString(),
                   version: api.runtime.getManifest().version };
  return { filename: safeFilename(`pith-snapshot ${snapshot.title || "page"}`, "msgpack"),
           mime: "application/x-msgpack", content: encode(record) };
}

/** Snapshot the tab and download it; resolves with {downloadId, filename, bytes}. */
export async function recordPage(tabId) {
  const { json } = await takeSnapshot(tabId);
  const doc = recordDocument(snapshotFromJson(json));
  const saved = await download(doc);
  return { ...saved, bytes: doc.content.length };
}
