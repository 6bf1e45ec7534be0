// Saving the article: a document with the title and source on top, under a file name that is safe on every
// system the browser runs on. Pure functions first (unit-tested under Node), the download last.
import "../limits.js";
import { PithFailure } from "./errors.js";

const L = globalThis.PITH_LIMITS;
const api = globalThis.browser ?? globalThis.chrome;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

/** A file name from a title: letters, digits and a little punctuation, never a path, never empty. */
export function safeFilename(title, extension) {
  let name = String(title || "").normalize("NFC")
    .replace(/[^\p{L}\p{M}\p{N} _\-.,()[\]]+/gu, " ")  // path separators, quotes, controls, emoji...
    .replace(/\s+/g, " ")
    .replace(/^[\s.]+/, "");
  name = Array.from(name).slice(0, L.MAX_FILENAME_CHARS).join("").replace(/[\s.]+$/, "");
  if (!name) name = "article";
  if (WINDOWS_RESERVED.test(name)) name = `article ${name}`;
  return `${name}.${extension}`;
}

// The article usually opens with its headline, which the header above already shows (the title may add the
// site's name: "Headline | Site"), so that first line is dropped.
function withoutLeadingTitle(body, title, prefix) {
  const lines = body.replace(/^\s+/, "").split("\n");
  const first = lines[0].replace(prefix, "").trim();
  if (title && first && title.trim().startsWith(first)) return lines.slice(1).join("\n").replace(/^\s+/, "");
  return body;
}

/** The saved document: {filename, mime, content}. `format` is "markdown" or "text". */
export function articleDocument(article, format) {
  const title = article.title || "Untitled";
  const source = article.url || "";
  if (format === "text") {
    const body = withoutLeadingTitle(article.text || "", article.title, /^/);
    const head = [title, "=".repeat(Math.min(Array.from(title).length, 80)), ""];
    if (article.byline) head.push(article.byline);
    if (source) head.push(`Source: ${source}`);
    return { filename: safeFilename(title, "txt"), mime: "text/plain",
             content: `${head.join("\n")}\n\n${body.trim()}\n` };
  }
  const body = withoutLeadingTitle(article.markdown || "", article.title, /^#\s+/);
  const head = [`# ${title.replace(/\n/g, " ")}`, ""];
  if (article.byline) head.push(`*${article.byline.replace(/[*_]/g, "\\$&")}*`, "");
  if (source) head.push(`Source: <${source.replace(/>/g, "%3E")}>`);
  return { filename: safeFilename(title, "md"), mime: "text/markdown",
           content: `${head.join("\n")}\n\n${body.trim()}\n` };
}

const OFFSCREEN = "offscreen/blob.html";

/** A blob: URL for `doc`: made here where the page can (Firefox's event page), else in an offscreen page. */
async function blobUrl(doc) {
  if (typeof URL.createObjectURL === "function") {
    const url = URL.createObjectURL(new Blob([doc.content], { type: `${doc.mime};charset=utf-8` }));
    return { url, revoke: () => URL.revokeObjectURL(url) };
  }
  const contexts = await api.runtime.getContexts({ contextTypes: ["OFFSCREEN_DOCUMENT"] });
  if (!contexts.length) {
    await api.offscreen.createDocument({ url: OFFSCREEN, reasons: ["BLOBS"],
                                         justification: "Make a download URL for a saved article." });
  }
  const { url } = await api.runtime.sendMessage({ type: "pith.blob.create", content: doc.content, mime: doc.mime });
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
