// Saving the article: the document (article_document.js) handed to the browser's downloads, in the folder and
// with the template the options page (options/options.js) stored.
import "../limits.js";
import "../template.js";
import "../article_document.js";
import { PithFailure } from "./errors.js";

const L = globalThis.PITH_LIMITS;
const api = globalThis.browser ?? globalThis.chrome;
export const { safeFilename, articleDocument, saveFolder } = globalThis.PITH_DOCUMENT;
const T = globalThis.PITH_TEMPLATE;
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

/** What the options page stored for saving: {format, template (the parsed object; undefined for the default or
 * a stored text that no longer reads), folder ("" for Downloads itself), saveAs, images, imagesAs ("folder" or
 * "zip": the images beside the Markdown, or both in one .zip)}. */
export async function saveSettings() {
  const stored = await api.storage.local.get(["saveFormat", "saveTemplate", "saveFolder", "saveAs", "saveImages",
                                              "saveImagesAs"]);
  const parsed = typeof stored.saveTemplate === "string" ? T.parseTemplate(stored.saveTemplate) : {};
  return { format: stored.saveFormat === "text" ? "text" : "markdown", template: parsed.template,
           folder: saveFolder(stored.saveFolder).folder || "", saveAs: stored.saveAs === true,
           images: stored.saveImages === true, imagesAs: stored.saveImagesAs === "zip" ? "zip" : "folder" };
}

/** Hand the document to the browser's downloads, in the chosen folder of Downloads (or where the user says,
 * with Save As); resolves with {downloadId, filename: the path under Downloads it was given}. `options` may
 * say another conflictAction, or saveAs, and may carry the `settings` read once for a save of many files, so
 * that all of them land in one folder. */
export async function download(doc, options = {}) {
  const settings = options.settings || (await saveSettings());
  const { folder } = settings;
  const saveAs = options.saveAs ?? settings.saveAs;
  const conflictAction = options.conflictAction || "uniquify";
  const filename = folder ? `${folder}/${doc.filename}` : doc.filename;
  let made;
  try {
    made = await blobUrl(doc);
  } catch (error) {
    throw new PithFailure("save_failed", error && error.message);
  }
  try {
    const downloadId = await api.downloads.download({ url: made.url, filename, conflictAction, saveAs });
    return { downloadId, filename };
  } catch (error) {
    throw new PithFailure("save_failed", error && error.message);
  } finally {
    setTimeout(made.revoke, L.BLOB_URL_LIFETIME_MS);
  }
}
