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

function withoutLeadingTitle(body, title, prefix) {
  const lines = body.replace(/^\s+/, "").split("\n");
  const first = lines[0].replace(prefix, "").trim();
  if (title && first === title.trim()) return lines.slice(1).join("\n").replace(/^\s+/, "");
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

function dataUrl(mime, text) {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:${mime};charset=utf-8;base64,${btoa(binary)}`;
}

/** Hand the document to the browser's downloads; resolves with {downloadId, filename}. */
export async function download(doc) {
  // A service worker has no object URLs (Chromium), an event page does (Firefox).
  const blobUrl = typeof URL.createObjectURL === "function"
    ? URL.createObjectURL(new Blob([doc.content], { type: `${doc.mime};charset=utf-8` })) : null;
  const url = blobUrl || dataUrl(doc.mime, doc.content);
  if (!blobUrl && url.length > L.MAX_DATA_URL_CHARS) {
    throw new PithFailure("save_failed", "the article is longer than a download from the extension may be; "
      + "save the page and run `pith extract -f markdown` on it");
  }
  try {
    const downloadId = await api.downloads.download({ url, filename: doc.filename, conflictAction: "uniquify", saveAs: false });
    return { downloadId, filename: doc.filename };
  } catch (error) {
    throw new PithFailure("save_failed", error && error.message);
  } finally {
    if (blobUrl) setTimeout(() => URL.revokeObjectURL(blobUrl), 60000);
  }
}
