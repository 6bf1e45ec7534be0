// The background: one native port to the host, and the one message every user action goes through.
//
// Only the extension's own pages may send messages here (the popup, the reader's and the note's frames, tests
// from an extension page); a content script's message carries a web page's URL and is refused, so nothing a
// page does can reach the host, the tabs or the downloads. The extension declares no externally_connectable:
// other sites and extensions cannot message it at all.
import "../limits.js";
import { HostClient } from "./host.js";
import { ACTIONS, makeRunner } from "./actions.js";
import { closeReader, takeSnapshot } from "./page.js";
import { asFailure } from "./errors.js";
import { recordPage } from "./record.js";
import { download, safeFilename } from "./save.js";

const api = globalThis.browser ?? globalThis.chrome;
const host = new HostClient((name) => api.runtime.connectNative(name));
const runAction = makeRunner(host);

const MENU = {
  reader: "Open in Pith reader view",
  highlight: "Highlight the main content",
  save: "Save the article as Markdown",
};

function fromExtensionPage(sender) {
  return sender.id === api.runtime.id && typeof sender.url === "string"
    && sender.url.startsWith(api.runtime.getURL(""));
}

// What the reader may save: each type with its file extension.
const SAVED_TYPES = { "text/markdown": "md", "text/plain": "txt" };

/** The reader's document, if it is one the reader makes: text of a saved type, under a safe name of that type
 * (safe_filename of its own stem gives it back), no larger than a request the host would take. */
function savedDocument(doc) {
  if (!doc || typeof doc !== "object" || typeof doc.content !== "string" || typeof doc.filename !== "string") return null;
  const extension = SAVED_TYPES[doc.mime];
  if (!extension || !doc.filename.endsWith(`.${extension}`)) return null;
  if (safeFilename(doc.filename.slice(0, -extension.length - 1), extension) !== doc.filename) return null;
  if (doc.content.length > globalThis.PITH_LIMITS.MAX_REQUEST_BYTES) return null;
  return { filename: doc.filename, mime: doc.mime, content: doc.content };
}

async function readerSave(doc) {
  const checked = savedDocument(doc);
  if (!checked) return { ok: false, error: asFailure(new Error("not a document the reader makes")).toJSON() };
  try {
    return { ok: true, ...(await download(checked)) };
  } catch (error) {
    return { ok: false, error: asFailure(error).toJSON() };
  }
}

/** The sender is one of Pith's frames over a page (reader/reader.html, note/note.html), in a tab. */
function fromFrame(sender, kind) {
  const page = { reader: "reader/reader.html", note: "note/note.html" }[kind];
  return Boolean(page) && sender.id === api.runtime.id && sender.tab && Number.isInteger(sender.tab.id)
    && typeof sender.url === "string" && sender.url.split(/[?#]/)[0] === api.runtime.getURL(page);
}

async function activeTabId() {
  const [tab] = await api.tabs.query({ active: true, lastFocusedWindow: true });
  return tab ? tab.id : undefined;
}

async function snapshotReply(tabId) {
  try {
    const { json, ms, json_ms: jsonMs, bytes } = await takeSnapshot(tabId);
    return { ok: true, snapshot: JSON.parse(json), ms, json_ms: jsonMs, bytes };
  } catch (error) {
    return { ok: false, error: asFailure(error).toJSON() };
  }
}

api.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (!message || typeof message !== "object") return false;
  if (!fromExtensionPage(sender)) return false;  // a content script's message: refused, whatever it asks
  if (message.type === "pith.frame.close" && fromFrame(sender, message.kind)) {
    // Esc or the back button in the reader, the note's close button: that frame's tab, nothing else.
    closeReader(sender.tab.id, message.kind).then(() => sendResponse({ ok: true }),
                                                  (error) => sendResponse({ ok: false, error: asFailure(error).toJSON() }));
    return true;
  }
  if (message.type === "pith.reader.save" && fromFrame(sender, "reader")) {
    // Save in the reader, on the user's click there (Firefox gives a frame over a page no downloads API).
    readerSave(message.doc).then(sendResponse);
    return true;
  }
  if (message.type === "pith.run") {
    const target = Number.isInteger(message.tabId) ? Promise.resolve(message.tabId) : activeTabId();
    target.then((tabId) => runAction(message.action, tabId)).then(sendResponse);
    return true;
  }
  if (message.type === "pith.snapshot" && Number.isInteger(message.tabId)) {
    // The live snapshot alone, for debugging and for the parity test and benchmark.
    snapshotReply(message.tabId).then(sendResponse);
    return true;
  }
  if (message.type === "pith.record" && Number.isInteger(message.tabId)) {
    // The developer option "Record this page": the live snapshot downloaded as .msgpack for a bug report.
    recordPage(message.tabId).then((saved) => ({ ok: true, ...saved }),
                                   (error) => ({ ok: false, error: asFailure(error).toJSON() })).then(sendResponse);
    return true;
  }
  return false;
});

api.runtime.onInstalled.addListener(async () => {
  await api.contextMenus.removeAll();  // a promise in both browsers' MV3 APIs
  for (const action of ACTIONS) {
    api.contextMenus.create({ id: action, title: MENU[action], contexts: ["page", "selection", "image", "link"] });
  }
});

api.contextMenus.onClicked.addListener((info, tab) => {
  if (tab && ACTIONS.includes(info.menuItemId)) runAction(info.menuItemId, tab.id);
});

api.commands.onCommand.addListener(async (command, tab) => {
  if (!ACTIONS.includes(command)) return;
  runAction(command, tab && Number.isInteger(tab.id) ? tab.id : await activeTabId());
});
