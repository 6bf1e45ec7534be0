// The reader view: the article the host found, rendered through the allowlist in sanitize.js under a header
// made from its metadata. This is the extension's own page (reader.html), in the frame content/frames.js lays
// over the web page in its own tab: another origin than the page's, so the page's scripts can neither read it,
// change it nor drive it, and its CSS cannot restyle it. The page stays as it was underneath (its scroll
// position, its state, its scripts); leaving the reader (Esc, the back button, the reader shortcut again)
// removes the frame and nothing else.
//
// Why over the page, not in a tab of its own: opening a tab costs the browser 170-210 ms of CPU on the two
// cores the host needs at the same moment (docs/performance.md).
//
// The frame shows nothing and does nothing until the background takes the one-time token it was given as its
// name (background/frames.js) and sends it an article over that port: a copy of reader.html that the page frames
// itself has no token, and stays blank. It listens to no message from the page (no `message` listener). Copy as
// Markdown and Save act only on the user's own click (`isTrusted`) and build the document by the template the
// options page stored, as the popup's Save does; Save sends it to the background, which checks it and
// downloads it. The reader's settings (typeface, size, width, line spacing, theme) are kept
// in storage.local, written only by this page's own controls, so that every page opens the way the reader left
// the last one. With text selected in the article, Copy and Save take the blocks the selection touches alone
// (their Markdown, where the host's `markdown_blocks` place it), under the same front matter.
import "../limits.js";
import "../template.js";
import "../article_document.js";
import "./sanitize.js";
import { portName } from "../background/frames.js";
import { saveSettings } from "../background/save.js";
import { attachNarrate, narrateControls } from "./narrate.js";
import { h } from "./element.js";

const api = globalThis.browser ?? globalThis.chrome;
const L = globalThis.PITH_LIMITS;
const { firstScreenEnd, parseArticle, safeUrl, sanitizeNodes } = globalThis.PITH_SANITIZE;
const { articleDocument } = globalThis.PITH_DOCUMENT;
const { SHAPES } = globalThis.PITH_CONTRACTS;  // the reader's forms by page type (native_host/pipeline/shape.py)

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
const AFTER_PAINT_MAX_MS = 100;
const PRESS_MS = 2000;  // a button's press and its click, at most this far apart

// The token this frame was made for, read once and wiped (a later document in this frame finds none).
const token = window.name;
window.name = "";
const view = { root: document, box: null, article: null, settings: null, writer: Math.random().toString(36).slice(2),
               writes: 0, statusTimer: null, port: null, template: undefined, pressed: null,
               completed: null, complete: null };
// The rest of the article (`complete`), which Copy and Save, and a first screen sent alone, wait for.
view.completed = new Promise((resolve) => { view.complete = resolve; });
// The user's choices, and Save's template (for Copy and Save's file names and heads), read while the host works;
// read again on any change, as a spare frame (content/frames.js) may wait long for its article.
const readStored = () => api.storage.local.get(null);
const readTemplate = () => saveSettings().then((settings) => settings.template, () => undefined);
let stored = readStored();
let template = readTemplate();
api.storage.onChanged.addListener((_changes, area) => {
  if (area !== "local") return;
  stored = readStored();
  template = readTemplate();
});

/** The settings as stored, each made valid (an unknown or missing value becomes its default). */
function valid(values) {
  const out = {};
  for (const [name, allowed] of Object.entries(CHOICES)) out[name] = allowed.includes(values[name]) ? values[name] : allowed[0];
  const px = Number(values.readerFontPx) || L.READER_FONT_DEFAULT_PX;
  out.readerFontPx = Math.min(L.READER_FONT_MAX_PX, Math.max(L.READER_FONT_MIN_PX, Math.round(px)));
  return out;
}

function button(attrs, text) {
  return h("button", { type: "button", ...attrs }, text);
}

function choice(setting, value, text, attrs = {}) {
  return button({ "data-setting": setting, "data-value": value, ...attrs }, text);
}

/** The view's markup: toolbar, settings panel, status line, header, article. */
function build() {
  const narrate = narrateControls();  // Read aloud: its button after "Aa", its panel beside the settings
  const toolbar = h("nav", { class: "toolbar", "aria-label": "Reader", dir: "ltr", lang: "en" },
    button({ id: "close", title: "Back to the page (Esc)", "aria-label": "Back to the page" }, "\u2190"),
    h("span", { class: "spacer" }),
    button({ id: "copy", title: "Copy the article as Markdown" }, "Copy as Markdown"),
    button({ id: "save", title: "Save the article as a file" }, "Save"),
    h("select", { id: "format", "aria-label": "Save as", title: "Save as" },
      h("option", { value: "markdown" }, "Markdown"), h("option", { value: "text" }, "Text")),
    button({ id: "settings-button", title: "Type, width and theme", "aria-label": "Type, width and theme",
             "aria-expanded": "false", "aria-controls": "settings" }, "Aa"),
    narrate.button);
  const row = (label, ...items) => h("div", { class: "row", role: "group", "aria-label": label }, ...items);
  const settings = h("div", { id: "settings", class: "settings", role: "group", "aria-label": "Reader settings",
                              dir: "ltr", lang: "en", hidden: true },
    row("Typeface", choice("readerFont", "serif", "Serif", { class: "serif" }),
        choice("readerFont", "sans", "Sans", { class: "sans" })),
    row("Text size", button({ id: "smaller", title: "Smaller text", "aria-label": "A\u2212 smaller text" }, "A\u2212"),
        h("output", { id: "size", "aria-live": "polite" }),
        button({ id: "larger", title: "Larger text", "aria-label": "A+ larger text" }, "A+")),
    row("Line width", choice("readerWidth", "narrow", "Narrow"), choice("readerWidth", "medium", "Medium"),
        choice("readerWidth", "wide", "Wide")),
    row("Line spacing", choice("readerLineHeight", "tight", "Tight"), choice("readerLineHeight", "normal", "Normal"),
        choice("readerLineHeight", "loose", "Loose")),
    h("div", { class: "row themes", role: "group", "aria-label": "Theme" },
      choice("readerTheme", "auto", "Auto", { title: "As the system" }),
      choice("readerTheme", "light", "Light", { class: "light" }),
      choice("readerTheme", "sepia", "Sepia", { class: "sepia" }),
      choice("readerTheme", "dark", "Dark", { class: "dark" })));
  const status = h("div", { id: "status", class: "status", role: "status", "aria-live": "polite", dir: "ltr",
                            lang: "en", hidden: true });
  const header = h("header", { id: "head", class: "head" },
    h("p", { class: "site", id: "site", hidden: true }),
    h("h1", { id: "title", dir: "auto" }),
    h("p", { class: "byline", id: "byline", dir: "auto", hidden: true }),
    h("p", { class: "meta", id: "meta", hidden: true }, h("time", { id: "date", hidden: true }),
      h("span", { id: "reading-time", hidden: true })),
    h("p", { class: "source", id: "source-line", hidden: true },
      h("a", { id: "source", target: "_blank", rel: "noopener noreferrer", dir: "ltr" })));
  const main = h("main", { id: "main" }, header, h("article", { id: "article", class: "article", dir: "auto" }));
  return h("div", { class: "view", role: "dialog", "aria-modal": "true", "aria-label": "Reader view",
                    tabindex: "-1" }, toolbar, settings, narrate.panel, status, main);
}

function applySettings(settings) {
  const { root } = view;
  const box = root.querySelector(".view");
  for (const name of Object.keys(CHOICES)) box.dataset[ATTRIBUTE[name]] = settings[name];
  box.style.setProperty("--font-size", `${settings.readerFontPx}px`);
  root.getElementById("size").textContent = `${settings.readerFontPx}px`;
  for (const b of root.querySelectorAll("[data-setting]")) {
    b.setAttribute("aria-pressed", String(settings[b.dataset.setting] === b.dataset.value));
  }
  root.getElementById("smaller").disabled = settings.readerFontPx <= L.READER_FONT_MIN_PX;
  root.getElementById("larger").disabled = settings.readerFontPx >= L.READER_FONT_MAX_PX;
  view.settings = settings;
}

function change(update) {
  applySettings(valid({ ...view.settings, ...update(view.settings) }));
  // Each write is stamped, so that this view tells its own writes (echoed by storage.onChanged) from another's.
  return api.storage.local.set({ ...view.settings, readerSettingsWriter: `${view.writer}:${++view.writes}` });
}

function say(text, error = false) {
  const box = view.root.getElementById("status");
  box.textContent = text;
  box.className = `status${error ? " error" : ""}`;
  box.hidden = false;
  clearTimeout(view.statusTimer);
  view.statusTimer = setTimeout(() => { box.hidden = true; }, STATUS_MS);
}

function show(id, text) {
  const el = view.root.getElementById(id);
  el.textContent = text;
  el.hidden = !text;
}

/** A date the page gave (ISO 8601) as the reader's language writes it, or null when it is not a date. */
function readableDate(iso, lang) {
  if (typeof iso !== "string" || !/^\d{4}-\d{2}-\d{2}/.test(iso)) return null;
  const date = new Date(iso.length === 10 ? `${iso}T12:00:00` : iso);  // a bare day is that day everywhere
  if (Number.isNaN(date.getTime())) return null;
  const options = { year: "numeric", month: "long", day: "numeric" };
  try {
    return new Intl.DateTimeFormat(lang && LANG.test(lang) ? lang : undefined, options).format(date);
  } catch {
    return new Intl.DateTimeFormat(undefined, options).format(date);
  }
}

function renderHeader(article, source) {
  const { root } = view;
  root.getElementById("title").textContent = article.title || "Untitled";
  let site = article.site_name || "";
  if (!site && source) site = new URL(source).hostname;
  show("site", site);
  show("byline", article.byline || "");
  const date = readableDate(article.date, article.lang);
  show("date", date || "");
  if (date) root.getElementById("date").dateTime = article.date;
  const minutes = Number(article.reading_minutes) || 0;
  show("reading-time", minutes > 0 ? `${minutes} min read` : "");
  root.getElementById("meta").hidden = !date && !(minutes > 0);
  if (source) {
    root.getElementById("source").href = source;
    root.getElementById("source").textContent = source;
    root.getElementById("source-line").hidden = false;
  }
}

/** Sanitised `nodes`, each table in a box of its own that scrolls sideways when wide: a region named after the
 * table's caption, in the Tab order so that the keyboard's arrows can scroll it. */
function articlePart(nodes, base) {
  const part = sanitizeNodes(nodes, base);
  for (const table of part.querySelectorAll("table")) {
    const caption = table.caption && table.caption.textContent.trim().replace(/\s+/g, " ");
    const box = h("div", { class: "table-scroll", role: "region", tabindex: "0",
                           "aria-label": caption ? `Table: ${caption.slice(0, 120)}` : "Table" });
    table.replaceWith(box);
    box.append(table);
  }
  for (const pre of part.querySelectorAll("pre")) codeBlock(pre);
  return part;
}

/** A code block under a bar naming its language (the host's language-X class) with a button that copies it. */
function codeBlock(pre) {
  const named = [pre, ...pre.querySelectorAll("code")].map((el) => el.className).find((c) => c.startsWith("language-"));
  const language = named ? named.slice("language-".length) : "";
  const bar = h("div", { class: "code-bar", dir: "ltr", lang: "en" },
    h("span", { class: "code-language" }, language),
    button({ class: "copy-code", "aria-label": language ? `Copy the ${language} code` : "Copy the code" }, "Copy"));
  const box = h("div", { class: "code-block", "data-language": language || null });
  pre.replaceWith(box);
  box.append(bar, pre);
}

/** Copy a code block's text, on the user's own click of its button. */
async function copyCode(event) {
  const target = event.target instanceof Element ? event.target.closest(".copy-code") : null;
  if (!target || !event.isTrusted) return;
  const pre = target.closest(".code-block").querySelector("pre");
  try {
    await writeClipboard(pre.textContent);
    say("Copied the code");
  } catch (error) {
    say(`Could not copy: ${error.message}. Select the code and copy it instead.`, true);
  }
}

/** The article's address where it is http(s), else null: its links and pictures resolve against it. */
function articleSource(article) {
  return article.url ? safeUrl(article.url, undefined, new Set(["http:", "https:"])) : null;
}

/** Render the header and the first screen of the article; returns a function that makes the rest (null when
 * nothing is left), to append after the first frame: a long article's sanitising and layout would otherwise
 * hold back the first screen's paint. */
function render(article) {
  const { root } = view;
  const main = root.getElementById("main");
  if (article.lang && LANG.test(article.lang)) root.querySelector(".view").lang = article.lang;
  // The page's direction when the host read it; else each part finds its own from its first letters.
  if (article.dir === "rtl" || article.dir === "ltr") main.dir = article.dir;
  const source = articleSource(article);
  renderHeader(article, source);
  // The host's article is the body alone: its headline, byline and dateline are the header above.
  // Only the part of the HTML that holds the first screen is parsed before the first paint; the rest after it.
  const html = String(article.html || "");
  const cut = firstScreenEnd(html, L.FIRST_SCREEN_CHARS);
  const nodes = parseArticle(html.slice(0, cut));
  let split = 0;
  for (let chars = 0; split < nodes.length && chars < L.FIRST_SCREEN_CHARS; split++) chars += nodes[split].textContent.length;
  const body = root.getElementById("article");
  body.dataset.shape = SHAPES.includes(article.shape) ? article.shape : "article";  // the form: reader.css
  body.replaceChildren(articlePart(nodes.slice(0, split), source || undefined));
  return () => {
    // Without a direction from the host, the whole view (header included) follows the one the article's own
    // first letters gave it: read once the view is laid out, not before (it would lay it out early).
    if (!main.dir) main.dir = getComputedStyle(body).direction === "rtl" ? "rtl" : "ltr";
    const rest = nodes.slice(split);
    if (cut < html.length) rest.push(...parseArticle(html.slice(cut)));
    return rest.length ? articlePart(rest, source || undefined) : null;
  };
}

/** After the next frame is painted (or soon, in a tab not shown, which paints no frames). */
function afterPaint() {
  return new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(() => setTimeout(resolve)));
    setTimeout(resolve, AFTER_PAINT_MAX_MS);
  });
}

/** The text on the clipboard: the asynchronous Clipboard API where the page is a secure context, else the
 * older copy command on a hidden field of the view (both need the click that started it). */
async function writeClipboard(text) {
  if (navigator.clipboard && typeof navigator.clipboard.writeText === "function") {
    await navigator.clipboard.writeText(text);
    return;
  }
  const field = h("textarea", { "aria-hidden": "true" });
  Object.assign(field.style, { position: "fixed", opacity: "0", inset: "0 auto auto 0" });
  field.value = text;
  view.root.append(field);
  field.select();
  const copied = document.execCommand("copy");
  field.remove();
  if (!copied) throw new Error("the browser refused");
}

async function copyMarkdown(event) {
  if (!event.isTrusted) return;  // the user's own click, never a script's
  try {
    const part = pressedPart();
    const { content } = savedDocument("markdown", part);
    await writeClipboard(content);
    say(part ? "Copied the selection as Markdown" : "Copied the article as Markdown");
  } catch (error) {
    say(`Could not copy: ${error.message}. Use Save instead.`, true);
  }
}

/** The article's blocks the user's selection in the view touches (the top-level elements of the article):
 * {markdown, text, selection} of those alone, from the host's `markdown_blocks`; null when the selection holds
 * none of the article (or the view's blocks are not those the host placed). */
function selectedPart() {
  const selection = document.getSelection();
  const spans = view.article.markdown_blocks;
  if (!selection || selection.isCollapsed || !Array.isArray(spans)) return null;
  const blocks = Array.from(view.root.getElementById("article").children);
  if (blocks.length !== spans.length) return null;
  const touched = blocks.map((el, i) => i).filter((i) => selection.containsNode(blocks[i], true));
  if (!touched.length) return null;
  const chars = Array.from(view.article.markdown);  // the places count code points
  const markdown = touched.map((i) => chars.slice(spans[i][0], spans[i][1]).join("")).filter(Boolean).join("\n\n");
  const text = touched.map((i) => blocks[i].innerText.trim()).filter(Boolean).join("\n\n");
  return markdown ? { markdown, text, selection: String(selection) } : null;
}

/** The selection's part as it was when the button was pressed (a press may move the selection before the
 * click), else as it is now (a key's click). */
function pressedPart() {
  const pressed = view.pressed;
  view.pressed = null;
  return pressed && performance.now() - pressed.at < PRESS_MS ? pressed.part : selectedPart();
}

/** The shown article, or its `part` (`selectedPart`), as a document in `format`, named and headed by the user's
 * template (read as the article came: Copy writes the clipboard within the click, with no wait). */
function savedDocument(format, part = null) {
  return articleDocument({ ...view.article, ...(part || {}), template: view.template }, format);
}

async function save(event) {
  if (!event.isTrusted) return;  // the user's own click, never a script's
  const format = view.root.getElementById("format").value === "text" ? "text" : "markdown";
  try {
    // The background checks the document and hands it to the browser's downloads.
    const reply = await api.runtime.sendMessage({ type: "pith.reader.save", doc: savedDocument(format, pressedPart()) });
    const pictures = reply && reply.images ? ` with ${reply.images.saved} images${reply.images.failed
      ? ` (${reply.images.failed} left as links)` : ""}` : "";
    if (reply && reply.ok) say(`Saved ${reply.filename}${pictures}`);
    else say(`Could not save: ${(reply && reply.error && reply.error.title) || "no answer"}`, true);
  } catch (error) {
    say(`Could not save: ${error.message}`, true);
  }
}

function toggleSettings(open = view.root.getElementById("settings").hidden) {
  view.root.getElementById("settings").hidden = !open;
  view.root.getElementById("settings-button").setAttribute("aria-expanded", String(open));
}

/** A link to a place in the article (a footnote, its back link) scrolls the view there; the page's own
 * address (its fragment, its history) is left alone. */
function followFragment(event) {
  const link = event.target.closest && event.target.closest("a[href^='#']");
  if (!link || event.button !== 0) return;
  event.preventDefault();
  let id = link.getAttribute("href").slice(1);
  try {
    id = decodeURIComponent(id);
  } catch { /* as written */ }
  const target = view.root.getElementById(id);
  if (!target) return;
  for (const old of view.root.querySelectorAll(".article .target")) old.classList.remove("target");
  target.classList.add("target");
  target.scrollIntoView({ block: "start" });
}

function wire(root, box) {
  const $ = (id) => root.getElementById(id);
  $("smaller").addEventListener("click", () => change((s) => ({ readerFontPx: s.readerFontPx - 1 })));
  $("larger").addEventListener("click", () => change((s) => ({ readerFontPx: s.readerFontPx + 1 })));
  for (const b of root.querySelectorAll("[data-setting]")) {
    b.addEventListener("click", () => change(() => ({ [b.dataset.setting]: b.dataset.value })));
  }
  // Read aloud's panel and the settings panel share a place: opening one closes the other. Wired before the
  // keys below, so that Esc closes its panel first.
  view.narrate = attachNarrate(root, { closeOthers: () => toggleSettings(false), lang: () => box.lang });
  $("settings-button").addEventListener("click", () => {
    toggleSettings();
    if (!$("settings").hidden) view.narrate.toggle(false);
  });
  for (const id of ["copy", "save"]) {
    $(id).addEventListener("pointerdown", () => { view.pressed = { part: selectedPart(), at: performance.now() }; });
  }
  $("copy").addEventListener("click", copyMarkdown);
  $("save").addEventListener("click", save);
  $("close").addEventListener("click", (event) => { if (event.isTrusted) close(); });
  $("format").addEventListener("change", () => api.storage.local.set({ saveFormat: $("format").value }));
  $("article").addEventListener("click", followFragment);
  $("article").addEventListener("click", copyCode);
  // The keys reach the view wherever the focus fell: a control hidden or blurred under it leaves the focus on
  // the body, which scrolls nothing (the view is the scroller), so it goes back to the view before the key acts.
  document.addEventListener("keydown", (event) => {
    if (!event.isTrusted) return;
    const active = root.activeElement;
    if (!active || active === root.body || !box.contains(active)) box.focus({ preventScroll: true });
    if (event.key !== "Escape" || event.defaultPrevented) return;
    event.preventDefault();
    // Esc closes the open panel first, the focus back on its button; then Esc leaves the reader.
    if (!$("settings").hidden) {
      toggleSettings(false);
      $("settings-button").focus({ preventScroll: true });
    } else {
      close();
    }
  }, true);
}

/** Settings changed in another reader (another tab) apply here too. */
api.storage.onChanged.addListener((changes, area) => {
  const writer = changes.readerSettingsWriter && changes.readerSettingsWriter.newValue;
  if (area !== "local" || !writer || writer.startsWith(`${view.writer}:`) || !view.settings) return;
  const update = {};
  for (const name of SETTINGS) if (name in changes) update[name] = changes[name].newValue;
  applySettings(valid({ ...view.settings, ...update }));
});

/** Show `article` ({title, html, url, ...: the metadata; `notice`, a line for the status; markdown,
 * front_matter and text may follow in `complete`}): the header and the first screen at once, the rest after
 * the first frame. `data-shown` on the root once the first screen is in, `data-ready` once all of it is. With
 * `first_screen`, `html` is the first screen's alone: the rest is the whole html `complete` brings, past it. */
async function open(article) {
  if (view.article) return;  // one article a frame
  view.article = article;
  const settings = await stored.catch(() => ({}));
  applySettings(valid(settings));
  document.getElementById("format").value = settings.saveFormat === "text" ? "text" : "markdown";
  view.template = await template;  // undefined: the default template
  // Copy and Save wait for the article's text and Markdown (`complete`), unless they came with it.
  if (typeof article.markdown !== "string") {
    for (const id of ["copy", "save"]) document.getElementById(id).disabled = true;
  }
  const rest = render(article);
  view.box.hidden = false;
  view.box.focus({ preventScroll: true });  // keys (space, arrows, Esc) go to the view
  if (article.notice) say(article.notice);
  document.documentElement.dataset.shown = "true";
  view.port.postMessage({ type: "shown", shownAt: performance.timeOrigin + performance.now() });
  await afterPaint();
  const more = rest();
  const body = document.getElementById("article");
  if (more) body.append(more);
  if (article.first_screen === true) {
    const shown = String(article.html || "");
    const whole = String((await view.completed).html ?? shown);
    const base = articleSource(article) || undefined;
    // The host's first screen is the whole's first top-level elements; were it not, the whole replaces it.
    if (whole.startsWith(shown)) body.append(articlePart(parseArticle(whole.slice(shown.length)), base));
    else if (!shown.startsWith(whole)) body.replaceChildren(articlePart(parseArticle(whole), base));
  }
  document.documentElement.dataset.ready = "true";
}

/** The rest of the article shown ({text, markdown, front_matter}), for Copy and Save, which wait for it. */
function complete(rest) {
  if (!view.article) return;
  view.complete(rest || {});
  const { text, markdown, front_matter: frontMatter, markdown_blocks: blocks } = rest || {};
  Object.assign(view.article, { text: String(text ?? ""), markdown: String(markdown ?? ""),
                                front_matter: String(frontMatter ?? ""), markdown_blocks: Array.isArray(blocks) ? blocks : [] });
  for (const id of ["copy", "save"]) document.getElementById(id).disabled = false;
}

/** Back to the page: the background takes this frame off it. */
function close() {
  api.runtime.sendMessage({ type: "pith.frame.close", kind: "reader" }).catch(() => {});
}

/** The view is built once the background has taken this frame's token (`hello`), while the host works, and
 * shown when the article comes: a frame without the token it was made for builds nothing. */
if (/^[0-9a-f]{32}$/.test(token)) {
  view.port = api.runtime.connect({ name: portName(token) });
  view.port.onMessage.addListener((message) => {
    if (message.type === "hello" && !view.box) {
      view.box = build();
      view.box.hidden = true;
      document.body.append(view.box);
      wire(document, view.box);
    } else if (message.type === "open" && view.box) {
      open(message.article);
    } else if (message.type === "complete") {
      complete(message.rest);
    }
  });
}
