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
import { snapshotFromJson } from "./rows.js";
import { documentWithImages } from "./images.js";
import { download, safeFilename, saveSettings } from "./save.js";

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

/** The reader's Save: its document checked, with the article's images as the options say (as the popup's Save). */
async function readerSave(doc, pageUrl) {
  const checked = savedDocument(doc);
  if (!checked) return { ok: false, error: asFailure(new Error("not a document the reader makes")).toJSON() };
  try {
    const format = checked.mime === "text/markdown" ? "markdown" : "text";
    const { doc: saved, images } = await documentWithImages(checked.content, format, pageUrl, await saveSettings(),
                                                            (content) => ({ ...checked, content }));
    return { ok: true, ...(await download(saved)), ...(images ? { images } : {}) };
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
    return { ok: true, snapshot: snapshotFromJson(json), ms, json_ms: jsonMs, bytes };
  } catch (error) {
    return { ok: false, error: asFailure(error).toJSON() };
  }
}

api.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (!message || typeof message !== "object") return false;
  if (!fromExtensionPage(sender)) return false;  // a content script's message: refused, whatever it asks
  if (message.type === "pith.frame.close" && fromFrame(sender, message.kind)) {
    // Esc or the back button in the reader, the note's close button: that frame's tab, nothing else.
    closeReader(sender.tab.id, message.kind, true).then(() => sendResponse({ ok: true }),
                                                  (error) => sendResponse({ ok: false, error: asFailure(error).toJSON() }));
    return true;
  }
  if (message.type === "pith.reader.save" && fromFrame(sender, "reader")) {
    // Save in the reader, on the user's click there (Firefox gives a frame over a page no downloads API).
    readerSave(message.doc, sender.tab.url).then(sendResponse);
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

// The host started ahead of the first click: when a tab finishes loading a web page, the port is opened and
// `hello` loads the model, so the click finds it ready (docs/extension.md, "Instant from the first click").
// On unless the user turns it off in the popup (`startHost` in storage.local); the host still exits after
// HOST_IDLE_TIMEOUT_S without a request, and the next page load starts it again. A start that fails is not
// tried again for HOST_EARLY_RETRY_MS: the click shows the failure and its fix.
// Once the model is loaded, one small page is read as the reader reads one, so that the first click does not
// pay for the first run of each stage either (the model's first inference, the article's first build).
let earlyFailedAt = -Infinity;

function warmUpSnapshot() {
  const nodes = [{ id: 0, parent: -1, depth: 0, tag: "html" }, { id: 1, parent: 0, depth: 1, tag: "body" },
                 { id: 2, parent: 1, depth: 2, tag: "article" }];
  const add = (parent, tag, text) => {
    const id = nodes.length;
    nodes.push({ id, parent, depth: nodes[parent].depth + 1, tag });
    nodes.push({ id: id + 1, parent: id, depth: nodes[parent].depth + 2, tag: "#text", text });
  };
  add(2, "h1", "Pith warms up");
  for (let i = 0; i < 4; i++) add(2, "p", "A paragraph the helper reads once before the first page, to be ready. ".repeat(4));
  return JSON.stringify({ format: "pith-snapshot", version: 2, source: "live", url: null, title: "Pith", lang: "en",
                          dir: null, viewport: null, meta: [], links: [], json_ld: [], nodes });
}

async function startHostEarly() {
  const { startHost = true } = await api.storage.local.get("startHost");
  if (!startHost || host.port || Date.now() - earlyFailedAt < globalThis.PITH_LIMITS.HOST_EARLY_RETRY_MS) return;
  try {
    await host.ready();
    await host.extract(warmUpSnapshot(), ["outline", "article", "markdown", "text"]);
  } catch {
    earlyFailedAt = Date.now();  // the click shows what failed, with its fix
  }
}

api.tabs.onUpdated.addListener((tabId, change, tab) => {
  if (change.status === "complete" && /^https?:/.test((tab && tab.url) || "")) startHostEarly();
});

// Turned off: the host is ended as soon as it has answered what it is working on (the port reopens on the
// next click).
async function stopHostWhenIdle() {
  while (host.pending.size) await new Promise((resolve) => setTimeout(resolve, 100));
  const { startHost = true } = await api.storage.local.get("startHost");
  if (!startHost) host.reset();
}

api.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && changes.startHost && changes.startHost.newValue === false) stopHostWhenIdle();
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
