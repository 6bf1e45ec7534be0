// Everything the background does inside a tab: inject the content scripts, take a snapshot, highlight,
// show the reader view over the page, show a note. Scripts are injected on demand (no page is touched until
// the user asks) into the extension's isolated world, where the page's own scripts cannot reach them. The
// reader view and the note are extension pages in frames over the page (content/frames.js); what they show
// comes from here, over the port each opens with its one-time token (frames.js).
import "../limits.js";
import { PithFailure } from "./errors.js";
import { expectFrame } from "./frames.js";

const api = globalThis.browser ?? globalThis.chrome;
// Paths from the extension's root, written absolute: Firefox resolves a relative one against the calling page.
const CONTENT_FILES = ["/limits.js", "/content/shadow_style.js", "/content/snapshot.js", "/content/highlight.js",
                       "/content/frames.js"];
const HIGHLIGHT_CSS = ["/content/highlight.css"];
// The reader's walk on a page whose content scripts are in already, in the page's own world (docs/security.md,
// "The reader's walk"): Firefox makes every read of a page node from the isolated world cross a wrapper, half of
// the walk's time there. Nothing of Pith's goes in; what comes back is checked here and by the host like any
// snapshot, and any failure falls back to the isolated walk.
const PAGE_WORLD_FILES = ["/limits.js", "/content/snapshot.js"];
const L = globalThis.PITH_LIMITS;
const readers = new Map();  // tabId -> the reader frame this context laid over it: {session, shown}
const spares = new Map();   // tabId -> a reader frame laid over it for the next click (placeSpare), not shown yet
const notes = new Map();    // tabId -> the note frame: {session, note}

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
  return callIn("ISOLATED", tabId, object, method, params);
}

/** `globalThis[object][method](...params)` in the page's `world` ("ISOLATED": the content scripts'; "MAIN": the
 * page's own): {value} or {error}; a page we cannot enter, or no answer, is a page_unreadable failure. */
async function callIn(world, tabId, object, method, params) {
  let results;
  try {
    results = await api.scripting.executeScript({ target: { tabId }, world, func: callInPage,
                                                  args: [object, method, params] });
  } catch (error) {
    throw new PithFailure("page_unreadable", error && error.message);
  }
  const outcome = results && results[0] && results[0].result;
  if (!outcome) throw new PithFailure("page_unreadable", "the page gave no answer");
  return outcome;
}

/** `callIn`, with the scripts `files` injected into `world` first where the object is missing there (at once
 * where `present` is false: known to be missing). */
async function callInjected(world, files, tabId, object, method, params, present = true) {
  let outcome = present ? await callIn(world, tabId, object, method, params) : { error: "missing" };
  if (outcome.error === "missing") {
    await inject(world, files, tabId);
    outcome = await callIn(world, tabId, object, method, params);
  }
  return outcome;
}

async function inject(world, files, tabId) {
  try {
    await api.scripting.executeScript({ target: { tabId }, world, files });
  } catch (error) {
    throw new PithFailure("page_unreadable", error && error.message);
  }
}

export async function injectContentScripts(tabId) {
  await inject("ISOLATED", CONTENT_FILES, tabId);
}

const utf8 = new TextEncoder();

/** The size of `text` in UTF-8, as the host counts a request against its cap: a string's length counts
 * UTF-16 units, so a CJK page over the cap (three bytes a character) would pass a check by length. */
export function utf8Bytes(text) {
  return utf8.encode(text).length;
}

/** A fresh snapshot of the page as it is now, as its JSON text: {json, bytes (UTF-8), nodes (how many),
 * takenAt, ms (the walk), json_ms, readerPlaced}. The text goes to the host as it is (`snapshot_json`): parsing
 * it here only for the browser to serialise the objects again cost more than the walk. `reader`: a view from
 * `readerView`, whose frame the page lays over itself once it is read (`readerPlaced`). */
export async function takeSnapshot(tabId, reader = null, scripts = false) {
  // A reader over a page read before: its frames script is in (`scripts`) to lay the frame after the walk.
  const inPageWorld = reader && scripts ? await takeInPageWorld(tabId) : null;
  if (inPageWorld) return inPageWorld;
  const token = reader ? reader.session.token : null;
  // The content scripts are injected unless the page is known to have them (`scripts`, from `inPage`: a page
  // clicked before keeps them), which saves a call into the page on every later click.
  const outcome = await callInjected("ISOLATED", CONTENT_FILES, tabId, "__pithSnapshot", "take", [token], scripts);
  if (outcome.error) throw new PithFailure("internal", `reading the page: ${outcome.error}`);
  return { ...outcome.value, bytes: utf8Bytes(outcome.value.json) };
}

/** The snapshot walked in the page's own world (`PAGE_WORLD_FILES`), without a node map (the highlighter's is the
 * isolated walk's) and without the reader's token; null where the page's world could not give one of the right
 * shape (a page's script in the way, a page we cannot enter): the caller walks in the isolated world then. */
async function takeInPageWorld(tabId) {
  try {
    const { value } = await callInjected("MAIN", PAGE_WORLD_FILES, tabId, "__pithSnapshot", "take", [null, false]);
    if (!value || typeof value.json !== "string") return null;
    const { json, nodes, takenAt, ms, json_ms: jsonMs, doneAt } = value;
    if (![nodes, takenAt, ms, jsonMs, doneAt].every(Number.isFinite)) return null;
    return { json, nodes, takenAt, ms, json_ms: jsonMs, doneAt, readerPlaced: false, bytes: utf8Bytes(json) };
  } catch {
    return null;
  }
}

/** Whether tab `tabId` shows `kind` ("reader": the reader's frame; "highlight": outlines), and whether the page
 * has Pith's content scripts at all: {active, scripts}. A page we cannot enter has neither. */
export async function inPage(tabId, kind) {
  try {
    const outcome = kind === "reader" ? await call(tabId, "__pithFrames", "active", "reader")
      : await call(tabId, "__pithHighlight", "active");
    return { active: outcome.value === true, scripts: outcome.error !== "missing" };
  } catch {
    return { active: false, scripts: false };
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

/** Runs `__pithFrames[method]` in the page; its value, or false where the page has no frames script. */
async function frames(tabId, method, ...params) {
  const outcome = await call(tabId, "__pithFrames", method, ...params);
  if (outcome.error) throw new PithFailure("reader_failed", outcome.error);
  return outcome.value;
}

/** Show a note in the page (progress, done, error), in its frame: a new one, or the one shown, updated. Best
 * effort: a page we cannot enter shows none. */
export async function notify(tabId, note) {
  const reader = readers.get(tabId);
  if (note.state === "progress" && reader && reader.active) return;  // the reader shown is the news
  const shown = notes.get(tabId);
  if (shown) {
    shown.note = note;
    shown.session.send({ type: "note", note });
    return;
  }
  const view = { note, session: null };
  view.session = expectFrame("note", tabId, {
    onMessage: (message) => {
      if (message.type === "size") frames(tabId, "size", "note", view.session.token, message.height).catch(() => {});
      else if (message.type === "close") hideNote(tabId, view);
    },
    onGone: () => hideNote(tabId, view),
  });
  notes.set(tabId, view);
  try {
    if (!await frames(tabId, "place", "note", view.session.token)) throw new Error("not placed");
  } catch {  // no content script there (yet): the popup and the reply still carry the note
    hideNote(tabId, view);
    return;
  }
  await view.session.connected;
  view.session.send({ type: "note", note: view.note });
}

/** Take the note off the page (`view`: only that one). */
export function hideNote(tabId, view = notes.get(tabId)) {
  if (!view || notes.get(tabId) !== view) return;
  notes.delete(tabId);
  view.session.end();
  frames(tabId, "close", "note", view.session.token).catch(() => {});
}

/** Lay the reader's frame over the page while the host works: it loads, reads the user's settings and opens
 * its port, showing nothing (clicks still reach the page) until `showReader` sends it the article. */
export async function prepareReader(tabId) {
  return placeReader(tabId, readerView(tabId));
}

/** A reader view for tab `tabId`: the one-time token its frame will connect with, and its `shown` promise. */
function newReaderView(tabId) {
  const view = { session: null, shown: null, active: false };
  view.shown = new Promise((resolve) => {
    view.session = expectFrame("reader", tabId, {
      onMessage: (message) => { if (message.type === "shown") resolve({ shownAt: Number(message.shownAt) }); },
      onGone: () => {  // closed, or no longer the extension's page: off the page
        if (readers.get(tabId) === view) readers.delete(tabId);
        if (spares.get(tabId) === view) spares.delete(tabId);
        frames(tabId, "close", "reader", view.session.token).catch(() => {});
      },
    });
  });
  return view;
}

/** The reader view for tab `tabId`: the spare one laid over its page after the last reader there (`placeSpare`;
 * `takeSnapshot` or `placeReader` takes it with its token), else a new one, its frame not yet laid over the
 * page (`takeSnapshot` or `placeReader` does it). */
export function readerView(tabId) {
  const old = readers.get(tabId);
  if (old) old.session.end();
  const view = spares.get(tabId) || newReaderView(tabId);
  spares.delete(tabId);
  readers.set(tabId, view);
  return view;
}

/** Lay a reader frame over tab `tabId`'s page for the next Reader view there, inert and out of sight until then:
 * the click finds its page loaded and its port open (docs/extension.md, "Instant from the first click"). Best
 * effort: a page that cannot take it gets none, said in the console, and the next click lays a frame as it
 * would have. */
export async function placeSpare(tabId) {
  const old = spares.get(tabId);
  if (old) old.session.end();
  const view = newReaderView(tabId);
  spares.set(tabId, view);
  try {
    if (!await frames(tabId, "spare", view.session.token)) throw new Error("not placed");
  } catch (error) {  // (a click may have taken the view meanwhile: its frame is then the one laid with the snapshot)
    if (spares.get(tabId) === view) {
      spares.delete(tabId);
      view.session.end();
      console.warn(`pith: no spare reader frame in tab ${tabId}, the next Reader view lays its own: ${
        (error && error.message) || error}`);
    }
  }
}

/** Lay `view`'s frame over the page; resolves with the view. */
export async function placeReader(tabId, view) {
  try {
    if (!await frames(tabId, "place", "reader", view.session.token)) throw new Error("the page refused the frame");
  } catch (error) {
    view.session.end();
    throw new PithFailure("reader_failed", error && error.message);
  }
  return view;
}

/** `promise`, or a reader_failed failure saying `what` after FRAME_WAIT_MS. */
function inTime(promise, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new PithFailure("reader_failed", what)), L.FRAME_WAIT_MS);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Show `article` in the reader frame `view` made ready by `prepareReader`; resolves with {shownAt} once its
 * first screen is in the frame. The frame takes the clicks and the focus, and the note goes. */
export async function showReader(tabId, article, view) {
  await inTime(view.session.connected, "the reader view did not load in the page");
  view.session.send({ type: "open", article });
  hideNote(tabId);
  await frames(tabId, "activate", "reader", view.session.token);
  view.active = true;
  return inTime(view.shown, "the reader view did not show the article");
}

/** Give the reader view shown the rest of its article ({text, markdown, front_matter}: what Copy and Save
 * need, not the first screen; the whole html where the view had the first screen's alone); false when the user
 * has closed it meanwhile. */
export function completeReader(tabId, rest) {
  const view = readers.get(tabId);
  return Boolean(view) && view.session.send({ type: "complete", rest });
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

/** Take the reader view (or the note: `kind`) off the page; resolves with whether one was open. `spare`: the user
 * left the reader, and a spare frame is laid for the next one (`placeSpare`). */
export async function closeReader(tabId, kind = "reader", spare = false) {
  const view = (kind === "reader" ? readers : notes).get(tabId);
  if (view) {
    (kind === "reader" ? readers : notes).delete(tabId);
    view.session.end();
  }
  const closed = (await frames(tabId, "close", kind)) === true;
  if (closed && spare && kind === "reader") placeSpare(tabId);
  return closed;
}
