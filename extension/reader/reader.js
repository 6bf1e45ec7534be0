// The reader view: the article the background stored (session storage, trusted extension pages only),
// rendered through the allowlist in sanitize.js under a header made from its metadata, with the reader's
// own settings (typeface, size, width, line spacing, theme), kept in storage.local so that every page opens
// the way the reader left the last one. Copy as Markdown and Save work on the article shown; Esc (or the
// reader shortcut again) goes back to the page.
import "../limits.js";
import { parseArticle, safeUrl, sanitizeNodes } from "./sanitize.js";
import { articleDocument, download } from "../background/save.js";

performance.mark("pith:script");  // this mark and the next two: bench/browser_speed.py's phases
const L = globalThis.PITH_LIMITS;
const api = globalThis.browser ?? globalThis.chrome;
const $ = (id) => document.getElementById(id);
// Each setting: the values it takes, the first being the default. Stored in storage.local under its name.
const CHOICES = {
  readerFont: ["serif", "sans"],
  readerWidth: ["medium", "narrow", "wide"],
  readerLineHeight: ["normal", "tight", "loose"],
  readerTheme: ["auto", "light", "sepia", "dark"],
};
const ATTRIBUTE = { readerFont: "font", readerWidth: "width", readerLineHeight: "lineHeight", readerTheme: "theme" };
const SETTINGS = [...Object.keys(CHOICES), "readerFontPx"];
const LANG = /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/;
const STATUS_MS = 4000;
const FIRST_SCREEN_CHARS = 4000;  // more text than a screen holds: rendered before the first paint
const AFTER_PAINT_MAX_MS = 100;

let article = null;     // what the background stored: {title, byline, url, html, markdown, text, date, ...}
let current = valid({});  // the settings shown; changes apply to it at once, so quick clicks add up
// Each write is stamped, so that this tab tells its own writes (echoed back by storage.onChanged, maybe after
// a later click) from another reader tab's.
const WRITER = Math.random().toString(36).slice(2);
let writes = 0;

/** The settings as stored, each made valid (an unknown or missing value becomes its default). */
function valid(stored) {
  const out = {};
  for (const [name, values] of Object.entries(CHOICES)) out[name] = values.includes(stored[name]) ? stored[name] : values[0];
  const px = Number(stored.readerFontPx) || L.READER_FONT_DEFAULT_PX;
  out.readerFontPx = Math.min(L.READER_FONT_MAX_PX, Math.max(L.READER_FONT_MIN_PX, Math.round(px)));
  return out;
}

function applySettings(settings) {
  const root = document.documentElement;
  for (const name of Object.keys(CHOICES)) root.dataset[ATTRIBUTE[name]] = settings[name];
  root.style.setProperty("--font-size", `${settings.readerFontPx}px`);
  $("size").textContent = `${settings.readerFontPx}px`;
  for (const button of document.querySelectorAll("[data-setting]")) {
    button.setAttribute("aria-pressed", String(settings[button.dataset.setting] === button.dataset.value));
  }
  $("smaller").disabled = settings.readerFontPx <= L.READER_FONT_MIN_PX;
  $("larger").disabled = settings.readerFontPx >= L.READER_FONT_MAX_PX;
  return settings;
}


function change(update) {
  current = applySettings(valid({ ...current, ...update(current) }));
  return api.storage.local.set({ ...current, readerSettingsWriter: `${WRITER}:${++writes}` });
}

let statusTimer = null;
function say(text, error = false) {
  const box = $("status");
  box.textContent = text;
  box.className = `status${error ? " error" : ""}`;
  box.hidden = false;
  clearTimeout(statusTimer);
  statusTimer = setTimeout(() => { box.hidden = true; }, STATUS_MS);
}

function showProblem(text) {
  $("title").textContent = "Nothing to show";
  const box = $("problem");
  box.textContent = text;
  box.hidden = false;
}

function show(id, text) {
  $(id).textContent = text;
  $(id).hidden = !text;
}

/** A date the page gave (ISO 8601) as the reader's language writes it, or null when it is not a date. */
export function readableDate(iso, lang) {
  if (typeof iso !== "string" || !/^\d{4}-\d{2}-\d{2}/.test(iso)) return null;
  const date = new Date(iso.length === 10 ? `${iso}T12:00:00` : iso);  // a bare day is that day everywhere
  if (Number.isNaN(date.getTime())) return null;
  const options = { year: "numeric", month: "long", day: "numeric" };
  try {
    return new Intl.DateTimeFormat(lang && LANG.test(lang) ? lang : undefined, options).format(date);
  } catch (error) {
    return new Intl.DateTimeFormat(undefined, options).format(date);
  }
}

function renderHeader(article, source) {
  const title = article.title || "Untitled";
  document.title = title;
  $("title").textContent = title;
  let site = article.site_name || "";
  if (!site && source) site = new URL(source).hostname;
  show("site", site);
  show("byline", article.byline || "");
  const date = readableDate(article.date, article.lang);
  show("date", date || "");
  if (date) $("date").dateTime = article.date;
  const minutes = Number(article.reading_minutes) || 0;
  show("reading-time", minutes > 0 ? `${minutes} min read` : "");
  $("meta").hidden = !date && !(minutes > 0);
  if (source) {
    $("source").href = source;
    $("source").textContent = source;
    $("source-line").hidden = false;
  }
}

/** Sanitised `nodes`, each wide table in a box of its own that scrolls sideways. */
function articlePart(nodes, base) {
  const part = sanitizeNodes(nodes, base);
  for (const table of part.querySelectorAll("table")) {
    const box = document.createElement("div");
    box.className = "table-scroll";
    table.replaceWith(box);
    box.append(table);
  }
  return part;
}

/** Render the header and the first screen of the article; returns a function that makes the rest (a
 * fragment; null when nothing is left), to append after the first frame: a long article's sanitising and
 * layout would otherwise hold back the first screen's paint. */
function render(article) {
  if (article.lang && LANG.test(article.lang)) document.documentElement.lang = article.lang;
  // The page's direction when the host read it; else each part finds its own from its first letters.
  if (article.dir === "rtl" || article.dir === "ltr") $("main").dir = article.dir;
  const source = article.url ? safeUrl(article.url, undefined, new Set(["http:", "https:"])) : null;
  renderHeader(article, source);
  // The host's article is the body alone: its headline, byline and dateline are the header above.
  const nodes = parseArticle(article.html);
  let split = 0;
  for (let chars = 0; split < nodes.length && chars < FIRST_SCREEN_CHARS; split++) chars += nodes[split].textContent.length;
  $("article").replaceChildren(articlePart(nodes.slice(0, split), source || undefined));
  // Without a direction from the host, the whole view (header included) follows the one the article's own
  // first letters gave it.
  if (!$("main").dir) $("main").dir = getComputedStyle($("article")).direction === "rtl" ? "rtl" : "ltr";
  return split < nodes.length ? () => articlePart(nodes.slice(split), source || undefined) : null;
}

/** After the next frame is painted (or soon, in a tab not shown, which paints no frames). Two tasks after
 * the frame: whatever else waits for that frame's paint (bench/browser_speed.py's stamp) comes first. */
function afterPaint() {
  return new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(() => setTimeout(resolve)));
    setTimeout(resolve, AFTER_PAINT_MAX_MS);
  });
}

async function copyMarkdown() {
  const doc = articleDocument(article, "markdown");
  try {
    await navigator.clipboard.writeText(doc.content);
    say("Copied the article as Markdown");
  } catch (error) {
    say(`Could not copy: ${error.message}. Use Save instead.`, true);
  }
}

async function save() {
  const format = $("format").value === "text" ? "text" : "markdown";
  try {
    const { filename } = await download(articleDocument(article, format));
    say(`Saved ${filename}`);
  } catch (error) {
    say(`Could not save: ${error.message}`, true);
  }
}

/** Back to the page: the same path as the reader shortcut pressed on this tab (the background closes it). */
async function leave() {
  const tab = await api.tabs.getCurrent();
  await api.runtime.sendMessage({ type: "pith.run", action: "reader", tabId: tab.id });
}

function toggleSettings(open = $("settings").hidden) {
  $("settings").hidden = !open;
  $("settings-button").setAttribute("aria-expanded", String(open));
}

function wire() {
  $("smaller").addEventListener("click", () => change((s) => ({ readerFontPx: s.readerFontPx - 1 })));
  $("larger").addEventListener("click", () => change((s) => ({ readerFontPx: s.readerFontPx + 1 })));
  for (const button of document.querySelectorAll("[data-setting]")) {
    button.addEventListener("click", () => change(() => ({ [button.dataset.setting]: button.dataset.value })));
  }
  $("settings-button").addEventListener("click", () => toggleSettings());
  $("copy").addEventListener("click", copyMarkdown);
  $("save").addEventListener("click", save);
  $("close").addEventListener("click", leave);
  $("format").addEventListener("change", () => api.storage.local.set({ saveFormat: $("format").value }));
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || event.defaultPrevented) return;
    event.preventDefault();
    if (!$("settings").hidden) toggleSettings(false);
    else leave();
  });
  // Settings changed in another reader tab apply here too.
  api.storage.onChanged.addListener((changes, area) => {
    const writer = changes.readerSettingsWriter && changes.readerSettingsWriter.newValue;
    if (area !== "local" || !writer || writer.startsWith(`${WRITER}:`)) return;
    const update = {};
    for (const name of SETTINGS) if (name in changes) update[name] = changes[name].newValue;
    current = applySettings(valid({ ...current, ...update }));
  });
}

/** The stored entry for `key`. The background opens this tab before the article is ready, under a key marked
 * pending: then the entry is the one the background stores next (or null when it removes the key). */
function storedArticle(key) {
  return new Promise((resolve, reject) => {
    const settle = (value) => {
      if (value && value.pending) return false;
      api.storage.onChanged.removeListener(changed);
      resolve(value || null);
      return true;
    };
    const changed = (changes, area) => {
      if (area === "session" && key in changes) settle(changes[key].newValue);
    };
    api.storage.onChanged.addListener(changed);  // before the read: the article may be stored meanwhile
    api.storage.session.get(key).then((found) => settle(found[key]), reject);
  });
}

async function main() {
  wire();
  const key = decodeURIComponent(location.hash.slice(1));
  const reading = key.startsWith("article:") ? storedArticle(key) : null;  // read beside the settings
  const settings = await api.storage.local.get([...SETTINGS, "saveFormat"]);
  current = applySettings(valid(settings));
  $("format").value = settings.saveFormat === "text" ? "text" : "markdown";
  const stored = await reading;
  if (!stored || !stored.article) {
    for (const id of ["copy", "save", "format"]) $(id).disabled = true;
    showProblem("This reader view has expired (the browser was restarted or too many articles were opened since). "
      + "Go back to the page and choose Reader again.");
    return;
  }
  article = stored.article;
  performance.mark("pith:loaded");
  const rest = render(article);
  performance.mark("pith:rendered");
  document.documentElement.dataset.shown = "true";
  if (rest) {
    await afterPaint();
    $("article").append(rest());
  }
  document.documentElement.dataset.ready = "true";  // the whole article is there
}

main().catch((error) => showProblem(`The article could not be shown: ${error.message}`));
