// Saving the article: a document with its metadata on top, under a file name that is safe on every system
// the browser runs on. Pure functions first (tests/test_extension_units.py runs them in the browser), the
// download last.
import "../limits.js";
import { PithFailure } from "./errors.js";

const L = globalThis.PITH_LIMITS;
const api = globalThis.browser ?? globalThis.chrome;
// Device names Windows reserves, with any extension ("con.tar.md" opens the console too).
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\s*\..*)?$/i;
const utf8 = new TextEncoder();

/** A file name from a title: letters, digits and a little punctuation, never a path, a dot file, a device
 * name or empty, short enough in UTF-8 bytes for any file system. native_host/cli/files.py's safe_filename
 * follows the same rules (tests/test_files.py runs both on the same titles). */
export function safeFilename(title, extension) {
  let name = String(title || "").normalize("NFC")
    .replace(/[^\p{L}\p{M}\p{N} _\-.,()[\]]+/gu, " ")  // path separators, quotes, controls, emoji...
    .replace(/\s+/g, " ")
    .replace(/^[ .]+/, "");
  const chars = Array.from(name).slice(0, L.MAX_FILENAME_CHARS);
  while (utf8.encode(chars.join("")).length > L.MAX_FILENAME_BYTES) chars.pop();
  name = chars.join("").replace(/[ .]+$/, "");
  if (!name) name = "article";
  if (WINDOWS_RESERVED.test(name)) name = `article ${name}`;
  return `${name}.${extension}`;
}

/** The saved document: {filename, mime, content}. `format` is "markdown" or "text". The host's article is
 * the body alone (its headline, byline and dateline are metadata, native_host/pipeline/metadata.py): a
 * Markdown file opens with the YAML front matter the host built (`article.front_matter`: one builder for the
 * CLI and the extension), a text file with the title, byline and source. */
export function articleDocument(article, format) {
  const title = article.title || "Untitled";
  if (format === "text") {
    const head = [title, "=".repeat(Math.min(Array.from(title).length, 80)), ""];
    if (article.byline) head.push(article.byline);
    if (article.url) head.push(`Source: ${article.url}`);
    return { filename: safeFilename(title, "txt"), mime: "text/plain",
             content: `${head.join("\n")}\n\n${(article.text || "").trim()}\n` };
  }
  const head = article.front_matter ? `${article.front_matter}\n` : "";
  const body = (article.markdown || "").replace(/^\n+|\n+$/g, "");
  return { filename: safeFilename(title, "md"), mime: "text/markdown", content: `${head}${body ? `${body}\n` : ""}` };
}

const OFFSCREEN = "offscreen/blob.html";

function base64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** A blob: URL for `doc`: made here where the page can (Firefox's event page), else in an offscreen page. */
async function blobUrl(doc) {
  const binary = doc.content instanceof Uint8Array;  // a recorded snapshot (record.js), not text
  if (typeof URL.createObjectURL === "function") {
    const url = URL.createObjectURL(new Blob([doc.content], { type: binary ? doc.mime : `${doc.mime};charset=utf-8` }));
    return { url, revoke: () => URL.revokeObjectURL(url) };
  }
  const contexts = await api.runtime.getContexts({ contextTypes: ["OFFSCREEN_DOCUMENT"] });
  if (!contexts.length) {
    await api.offscreen.createDocument({ url: OFFSCREEN, reasons: ["BLOBS"],
                                         justification: "Make a download URL for a saved article." });
  }
  // Messages carry JSON, so bytes travel as base64.
  const content = binary ? base64(doc.content) : doc.content;
  const { url } = await api.runtime.sendMessage({ type: "pith.blob.create", content, binary, mime: doc.mime });
  return { url, revoke: () => api.runtime.sendMessage({ type: "pith.blob.revoke", url }).catch(() => {}) };
}

/** Hand the document to the browser's downloads; resolves with {downloadId, filename}. */
export async function download(doc) {
  let made;
  try {
    made = await blobUrl(doc);
  } catch (error) {
    throw new PithFailure("save_failed", error && error.message);
  }
  try {
    const downloadId = await api.downloads.download({ url: made.url, filename: doc.filename,
                                                      conflictAction: "uniquify", saveAs: false });
    return { downloadId, filename: doc.filename };
  } catch (error) {
    throw new PithFailure("save_failed", error && error.message);
  } finally {
    setTimeout(made.revoke, L.BLOB_URL_LIFETIME_MS);
  }
}
