// The one action path: popup buttons, context menu, keyboard shortcuts and tests all end in runAction, which
// answers {ok: true, action, article: {title, text, ...}, node_ids, ...} or {ok: false, error: {code, message}}.
// Each run reads the page afresh, so pages that keep loading (infinite scroll, single-page apps) give their
// current content.
import "../limits.js";
import { PithFailure, asFailure } from "./errors.js";
import { requestOverCap } from "./host.js";
import { clearHighlight, closeReader, completeReader, inPage, notify, pageSelection, placeReader, readerView,
         selectedNodeIds, showHighlight, showReader, styleHighlight, takeSnapshot } from "./page.js";
import { documentWithImages } from "./images.js";
import { articleDocument, download, saveSettings } from "./save.js";

const L = globalThis.PITH_LIMITS;
const api = globalThis.browser ?? globalThis.chrome;

export const ACTIONS = ["reader", "highlight", "save"];
// "outline", not "highlight": the main blocks alone, each with how to outline it, not every block with every
// score (at 5,000 elements the reply is a third the size, and the browser builds far fewer objects).
const WANT = {
  reader: ["outline", "article", "markdown", "text"],  // markdown: the reader's Copy as Markdown and Save
  highlight: ["outline", "text"],
  save: ["outline", "markdown", "text"],
};
// What the reader's first screen needs, asked ahead of the rest (docs/protocol.md, Parts): at 5,000 elements
// the text and Markdown that follow are 0.45 of the reply's 0.76 MB, and the view is shown without them.
const FIRST = { reader: ["outline", "article"] };
const TRUNCATED = "The page was too large: only its first part was read.";
const DONE = {  // the reader view is its own news
  highlight: "Main content highlighted",
  save: "Article saved",
};
// What the host's article always carries (native_host/result.py, the fields Result marks `reply`): the reader's
// header and the saved file's head are made of these.
export const METADATA_FIELDS = globalThis.PITH_CONTRACTS.METADATA_FIELDS;
// The time of each step, on a clock every extension page and tab shares, for the reply's `marks`
// (bench/browser_speed.py splits an action into phases with them).
const clock = () => performance.timeOrigin + performance.now();

/** The snapshot node ids of the main content, ascending: the host's `node_ids`, from its `outline`. */
export function mainNodeIds(outline) {
  const ids = new Set();
  for (const block of outline) for (const id of block.node_ids) ids.add(id);
  return Array.from(ids).sort((a, b) => a - b);
}

/** Where progress goes: any open popup at once, and the page's note once the action has taken longer than
 * PROGRESS_AFTER_MS (the note is a frame of its own: loading one while the host works would slow every action
 * it reports on). `stop()` when the action is over. */
function reporter(tabId, action) {
  let waiting = true;  // the note waits out PROGRESS_AFTER_MS
  let over = false;
  let latest = null;
  const timer = setTimeout(() => {
    waiting = false;
    if (latest && !over) notify(tabId, latest);
  }, L.PROGRESS_AFTER_MS);
  const report = (text) => {
    const note = { state: "progress", title: "Pith is working\u2026", text, action };
    api.runtime.sendMessage({ type: "pith.progress", tabId, note }).catch(() => {});
    latest = note;
    if (!waiting && !over) notify(tabId, note);
  };
  report.stop = () => {
    over = true;
    clearTimeout(timer);
  };
  return report;
}

function describeProgress(p) {
  if (p.stage === "receiving") return `Receiving the result (part ${p.done} of ${p.total})\u2026`;
  const count = p.total ? ` (${p.done} of ${p.total})` : "";
  return `The helper is ${String(p.stage || "working").replace(/_/g, " ")}${count}\u2026`;
}

/** What a saved document needs besides the article: the user's template, the moment, the page's selection. */
async function clipping(tabId) {
  const [settings, selection] = await Promise.all([saveSettings(), pageSelection(tabId)]);
  return { settings, extra: { template: settings.template, created: globalThis.PITH_TEMPLATE.nowIso(), selection } };
}

export function makeRunner(host) {
  const lastArticle = new Map();  // tabId -> {title, text}, for the reply when highlight is toggled off
  api.tabs.onRemoved.addListener((tabId) => lastArticle.delete(tabId));

  async function run(action, tabId, marks) {
    if (!ACTIONS.includes(action)) throw new PithFailure("bad_action", String(action));
    let tab;
    try {
      tab = await api.tabs.get(tabId);
    } catch {
      throw new PithFailure("no_tab", `tab ${tabId}`);
    }
    // Reader and Highlight toggle: shown already, the action takes it off. The same look into the page says
    // whether its content scripts are there (`scripts`), so that the snapshot injects them only where not.
    const shown = action === "save" ? { active: false, scripts: false } : await inPage(tabId, action);
    if (action === "reader" && shown.active) {  // the reader shortcut again: back to the page
      await closeReader(tabId, "reader", true);
      return { ok: true, action, closed: true };
    }
    if (action === "highlight" && shown.active) {
      await clearHighlight(tabId);
      notify(tabId, { state: "done", title: "Highlight off", text: "" });
      return { ok: true, action, highlighted: false, node_ids: [],
               article: lastArticle.get(tabId) || { title: tab.title || null, text: "" } };
    }
    // What is made ready while the host works: the reader's frame (its page, scripts and settings), the outlines'
    // stylesheet; and the progress reporter, stopped once the action is over.
    const ready = { reader: null, style: null, progress: null };
    try {
      return await extractAndShow(action, tab, ready, marks, shown.scripts);
    } catch (error) {
      if (ready.style) await ready.style.then(() => clearHighlight(tab.id, false), () => {});
      if (ready.reader) await ready.reader.then(() => closeReader(tab.id), () => {}).catch(() => {});  // its frame
      throw error;
    } finally {
      if (ready.progress) ready.progress.stop();
    }
  }

  async function extractAndShow(action, tab, ready, marks, scripts) {
    const tabId = tab.id;
    const progress = reporter(tabId, action);
    ready.progress = progress;
    const slow = setTimeout(() => progress("Reading the page\u2026"), L.PROGRESS_AFTER_MS);
    let taken;
    // The reader's frame is laid over the page by the snapshot's own call, once the page is read: it loads while
    // the snapshot travels here and the host works.
    const reader = action === "reader" ? readerView(tabId) : null;
    if (reader) ready.reader = Promise.resolve(reader);
    marks.snapshot_asked = clock();
    try {
      taken = await takeSnapshot(tabId, reader, scripts);
    } finally {
      clearTimeout(slow);
    }
    const { json, nodes, takenAt, ms, bytes } = taken;
    Object.assign(marks, { snapshot_in: clock(), page_done: taken.doneAt, walk_ms: ms, json_ms: taken.json_ms });
    // Save takes the selection alone when there is one: its nodes, read from this snapshot's node map.
    const selection = action === "save" ? await selectedNodeIds(tabId) : [];
    const over = requestOverCap(json, bytes, WANT[action]);
    if (over !== null) throw new PithFailure("too_large", `the page's snapshot is ${Math.round(over / 1048576)} MiB`);
    progress(`Finding the main content of ${nodes.toLocaleString()} page nodes\u2026`);
    // Started now, not before the snapshot: they run while the host works, not while the page is read (a frame
    // laid over the page before the walk made the walk lay the page out again). A reader frame the page did not
    // lay over itself with the snapshot (it had no frames script then) is laid now.
    if (reader && !taken.readerPlaced) ready.reader = placeReader(tabId, reader);
    if (action === "highlight") ready.style = styleHighlight(tabId);
    for (const started of [ready.reader, ready.style]) if (started) started.catch(() => {});  // awaited below
    marks.host_in = clock();
    let gotFirst = null;  // resolves firstPart with the reply's first part, where the host sends one
    const firstPart = new Promise((resolve) => { gotFirst = resolve; });
    const whole = host.extract(json, WANT[action], {
      snapshotBytes: bytes, onProgress: (p) => progress(describeProgress(p)), first: FIRST[action] || [], onFirst: gotFirst,
      selection });
    whole.catch(() => {});  // awaited below; this only keeps a failure after the first part from going unhandled
    // The reader is shown from the first part (or from the whole reply, from a host that sends no parts).
    let reply = await (action === "reader" ? Promise.race([firstPart, whole]) : whole);
    marks.host_out = clock();
    const article = reply.article || {};
    const summary = {};
    for (const field of METADATA_FIELDS) summary[field] = article[field] ?? null;
    const outline = reply.outline || [];
    const nodeIds = mainNodeIds(outline);
    // A first part carries no text: its word count says whether the body has any.
    const empty = "text" in article ? !article.text.trim() : !article.word_count;
    if (!nodeIds.length || empty) throw new PithFailure("no_content");
    const answer = { ok: true, action, node_ids: nodeIds, truncated: !!reply.truncated,
                     timings: { ...reply.timings, snapshot: Math.round(ms * 10) / 10 }, snapshot_bytes: bytes };
    if (action === "reader") {
      // What the first screen needs goes first; the text and Markdown (for Copy and Save) follow it.
      // The first part's html may be the first screen's alone (`first_screen`): the whole comes with the rest.
      const cut = article.first_screen === true;
      const first = { ...summary, html: article.html || "", first_screen: cut, notice: reply.truncated ? TRUNCATED : "" };
      const shown = await showReader(tabId, first, await ready.reader);
      marks.shown = shown.shownAt;
      marks.drawn = clock();
      reply = await whole;  // the first part joined with the rest: the text and Markdown for Copy and Save
      const full = reply.article || {};
      const { extra } = await clipping(tabId);  // Copy and Save in the reader name and head the file the same way
      await completeReader(tabId, { text: full.text || "", markdown: full.markdown || "",
                                    markdown_blocks: full.markdown_blocks || [], ...extra,
                                    ...(cut ? { html: full.html || "" } : {}) });
      answer.reader = true;
    }
    summary.text = (reply.article || {}).text || "";
    answer.article = summary;
    lastArticle.set(tabId, { title: summary.title, text: summary.text });
    if (action === "highlight") {
      await ready.style;
      answer.highlighted_elements = await showHighlight(tabId, outline, takenAt, reply.headline || []);
      answer.highlighted = true;
      marks.drawn = clock();
    } else if (action === "save") {
      const { settings, extra } = await clipping(tabId);
      const makeDoc = (body) => articleDocument({ ...summary, markdown: body, ...extra }, settings.format);
      const { doc, images } = await documentWithImages(article.markdown || "", settings.format, summary.url,
                                                       settings, makeDoc);
      if (images) answer.images = images;
      Object.assign(answer, await download(doc), { selection: article.selection === true });
    }
    const extra = reply.truncated ? ` ${TRUNCATED}` : "";
    const pictures = answer.images ? ` ${answer.images.saved} images saved${answer.images.failed
      ? `, ${answer.images.failed} left as links` : ""}.` : "";
    const text = action === "highlight" ? `Run Highlight again to turn it off.${extra}`
      : `${summary.title || ""}${pictures}${extra}`;
    const title = action === "save" && answer.selection ? "Selection saved" : DONE[action];
    if (action !== "reader") notify(tabId, { state: "done", title, text });
    answer.marks = marks;
    return answer;
  }

  /** Never throws: every failure becomes {ok: false, error} and a note in the page and on the toolbar. */
  return async function runAction(action, tabId) {
    try {
      const answer = await run(action, tabId, { received: clock() });
      api.action.setBadgeText({ tabId, text: "" }).catch(() => {});
      return answer;
    } catch (error) {
      const failure = asFailure(error);
      const detail = failure.toJSON();
      console.warn(`pith ${action} failed: ${failure.code}: ${failure.message}`);
      if (Number.isInteger(tabId)) {
        notify(tabId, { state: "error", title: detail.title, text: detail.text, fix: detail.fix });
        api.action.setBadgeText({ tabId, text: "!" }).catch(() => {});
        api.action.setTitle({ tabId, title: `Pith: ${detail.title}. ${detail.fix}` }).catch(() => {});
        api.runtime.sendMessage({ type: "pith.progress", tabId, note: { state: "error", ...detail } }).catch(() => {});
      }
      return { ok: false, action, error: detail };
    }
  };
}
