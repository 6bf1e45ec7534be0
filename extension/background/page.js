// Everything the background does inside a tab: inject the content scripts, take a snapshot, highlight,
// show the reader view over the page, show a note. Scripts are injected on demand (no page is touched until
// the user asks) into the extension's isolated world, where the page's own scripts cannot reach them.
import { PithFailure } from "./errors.js";

const api = globalThis.browser ?? globalThis.chrome;
// Paths from the extension's root, written absolute: Firefox resolves a relative one against the calling page.
const CONTENT_FILES = ["/limits.js", "/code_spans.js", "/content/shadow_style.js", "/content/snapshot.js",
                       "/content/highlight.js", "/content/toast.js"];
const HIGHLIGHT_CSS = ["/content/highlight.css"];
// The reader view, injected only for it (after CONTENT_FILES, whose globals it uses): it builds its view in
// the page.
const READER_FILES = ["/template.js", "/article_document.js", "/reader/sanitize.js", "/reader/reader.js"];
const READER_CSS = "/reader/reader.css";
let readerCss = null;  // the view's stylesheet, read once a session

// Runs in the page: calls one method of a content-script object, returning {value} or {error}.
function callInPage(object, method, params) {
  try {
    const target = globalThis[object];
    if (!target) return { error: "missing" };
    return { value: target[method](...params) };
  } catch (error) {
    return { error: String((error && error.message) || error) };
  }
}

async function call(tabId, object, method, ...params) {
  let results;
  try {
    results = await api.scripting.executeScript({ target: { tabId }, func: callInPage, args: [object, method, params] });
  } catch (error) {
    throw new PithFailure("page_unreadable", error && error.message);
  }
  const outcome = results && results[0] && results[0].result;
  if (!outcome) throw new PithFailure("page_unreadable", "the page gave no answer");
  return outcome;
}

export async function injectContentScripts(tabId) {
  try {
    await api.scripting.executeScript({ target: { tabId }, files: CONTENT_FILES });
  } catch (error) {
    throw new PithFailure("page_unreadable", error && error.message);
  }
}

const utf8 = new TextEncoder();

/** The size of `text` in UTF-8, as the host counts a request against its cap: a string's length counts
 * UTF-16 units, so a CJK page over the cap (three bytes a character) would pass a check by length. */
export function utf8Bytes(text) {
  return utf8.encode(text).length;
}

/** A fresh snapshot of the page as it is now, as its JSON text: {json, bytes (UTF-8), nodes (how many),
 * takenAt, ms (the walk), json_ms}. The text goes to the host as it is (`snapshot_json`): parsing it here
 * only for the browser to serialise the objects again cost more than the walk. */
export async function takeSnapshot(tabId) {
  await injectContentScripts(tabId);
  const outcome = await call(tabId, "__pithSnapshot", "take");
  if (outcome.error) throw new PithFailure("internal", `reading the page: ${outcome.error}`);
  return { ...outcome.value, bytes: utf8Bytes(outcome.value.json) };
}

export async function highlightActive(tabId) {
  try {
    const outcome = await call(tabId, "__pithHighlight", "active");
    return outcome.value === true;
  } catch {
    return false;  // a page we cannot enter has no highlight to clear
  }
}

/** Insert the outlines' stylesheet; alone, before any mark is set, it shows nothing. */
export async function styleHighlight(tabId) {
  try {
    await api.scripting.insertCSS({ target: { tabId }, files: HIGHLIGHT_CSS });
  } catch (error) {
    throw new PithFailure("page_unreadable", error && error.message);
  }
}

async function unstyleHighlight(tabId) {
  try {
    await api.scripting.removeCSS({ target: { tabId }, files: HIGHLIGHT_CSS });
  } catch { /* the marks are gone already; the stylesheet alone shows nothing */ }
}

/** Outline `blocks` ([{node_ids, kind}]) of the snapshot taken at `takenAt`, and the page's `headline` (node
 * ids) as the title, once `styleHighlight` has inserted the stylesheet; returns the number of elements. */
export async function showHighlight(tabId, blocks, takenAt, headline = []) {
  const outcome = await call(tabId, "__pithHighlight", "show", blocks, takenAt, headline);
  if (outcome.error) throw new PithFailure("page_changed", outcome.error);
  return outcome.value;
}

/** Remove the marks and the stylesheet; `marked` false when no mark was set (a run that failed). */
export async function clearHighlight(tabId, marked = true) {
  if (marked) await call(tabId, "__pithHighlight", "clear");
  await unstyleHighlight(tabId);
}

/** Show a note in the page (progress, done, error). Best effort: a page we cannot enter shows none. */
export async function notify(tabId, note) {
  try {
    await api.tabs.sendMessage(tabId, { type: "pith.toast", note });
  } catch { /* no content script there (yet): the popup and the reply still carry the note */ }
}

/** Make the reader view ready in the page while the host works: its scripts injected, its stylesheet and the
 * user's settings read. Resolves with what `showReader` needs besides the article. */
export async function prepareReader(tabId) {
  if (readerCss === null) {
    readerCss = fetch(api.runtime.getURL(READER_CSS)).then((r) => r.text());
    readerCss.catch(() => { readerCss = null; });
  }
  try {
    const [, css, settings] = await Promise.all([
      api.scripting.executeScript({ target: { tabId }, files: READER_FILES }), readerCss,
      api.storage.local.get(null)]);  // the user's choices, few and small: reader/reader.js picks its own
    return { css, settings };
  } catch (error) {
    throw new PithFailure("reader_failed", error && error.message);
  }
}

/** One method of the reader view in the page; its value, or a reader_failed failure. */
async function callReader(tabId, method, ...params) {
  const outcome = await call(tabId, "__pithReader", method, ...params);
  if (outcome.error) throw new PithFailure("reader_failed", outcome.error);
  return outcome.value;
}

/** Lay the reader view of `article` over the page (`prepared` from `prepareReader`); resolves with {shownAt}
 * once its first screen is in the page. */
export function showReader(tabId, article, prepared) {
  return callReader(tabId, "open", article, prepared.settings, prepared.css);
}

/** Give the reader view shown the rest of its article ({text, markdown, front_matter}: what Copy and Save
 * need, not the first screen). */
export function completeReader(tabId, rest) {
  return callReader(tabId, "complete", rest);
}

/** The text the user has selected in the tab ("" for none, or where the page cannot be entered): the template's
 * `selection`. */
export async function pageSelection(tabId) {
  try {
    const [done] = await api.scripting.executeScript({ target: { tabId }, func: () => String(globalThis.getSelection() || "") });
    return done && typeof done.result === "string" ? done.result : "";
  } catch {
    return "";
  }
}

/** The snapshot node ids of the text the user's selection touches in the tab, from the node map of the last
 * snapshot (content/snapshot.js keeps it): [] when nothing is selected. The host saves those nodes' blocks
 * alone (docs/extension.md, Save). */
export async function selectedNodeIds(tabId) {
  try {
    const [done] = await api.scripting.executeScript({ target: { tabId }, func: () => {
      const selection = globalThis.getSelection();
      const map = globalThis.__pith;
      if (!selection || selection.isCollapsed || !map || !Array.isArray(map.nodes)) return [];
      const ids = [];
      map.nodes.forEach((node, id) => {
        if (node && node.nodeType === Node.TEXT_NODE && node.data.trim() && selection.containsNode(node, true)) ids.push(id);
      });
      return ids;
    } });
    return done && Array.isArray(done.result) ? done.result : [];
  } catch {
    return [];
  }
}

export async function readerActive(tabId) {
  try {
    return (await call(tabId, "__pithReader", "active")).value === true;
  } catch {
    return false;  // a page we cannot enter shows no reader
  }
}

/** Take the reader view off the page; resolves with whether one was open. */
export async function closeReader(tabId) {
  return (await callReader(tabId, "close")) === true;
}
