// The reader view, laid over the page in its own tab: the article the host found, rendered through the
// allowlist in sanitize.js under a header made from its metadata, in a closed shadow root in the browser's top
// layer. The page stays as it was underneath (its scroll position, its state, its scripts); leaving the reader
// (Esc, the back button, the reader shortcut again) removes the view and nothing else.
//
// Why over the page, not in a tab of its own: opening a tab costs the browser 170-210 ms of CPU on the two
// cores the host needs at the same moment (docs/performance.md). The view is built here, in the extension's
// isolated world: the page's scripts cannot reach into it, its CSS cannot restyle it, and the key and pointer
// events it handles stop at its edge.
//
// The reader's own settings (typeface, size, width, line spacing, theme) are kept in storage.local, so that
// every page opens the way the reader left the last one. Copy as Markdown and Save work on the article shown.
(() => {
  "use strict";
  if (globalThis.__pithReader) return;
  const api = globalThis.browser ?? globalThis.chrome;
  const L = globalThis.PITH_LIMITS;
  const { parseArticle, safeUrl, sanitizeNodes } = globalThis.PITH_SANITIZE;
  const { articleDocument } = globalThis.PITH_DOCUMENT;

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
  // Events that stop at the view's edge: the page's own handlers (shortcuts, scroll hijacking, "click outside")
  // must not act on what the reader does.
  const CONTAINED = ["keydown", "keyup", "keypress", "wheel", "click", "dblclick", "auxclick", "contextmenu",
                     "mousedown", "mouseup", "pointerdown", "pointerup", "touchstart", "touchmove", "touchend",
                     "input", "change", "focusin", "focusout", "copy", "cut", "paste"];
  // What a reader may set on the page's tab, for tests and the benchmark: `data-pith-reader` on the host
  // element ("shown" once the first screen is there, "ready" once the whole article is).
  const STATE = "data-pith-reader";

  let view = null;  // {host, root, article, settings, writer, writes, statusTimer, onStorage}

  /** The settings as stored, each made valid (an unknown or missing value becomes its default). */
  function valid(stored) {
    const out = {};
    for (const [name, values] of Object.entries(CHOICES)) out[name] = values.includes(stored[name]) ? stored[name] : values[0];
    const px = Number(stored.readerFontPx) || L.READER_FONT_DEFAULT_PX;
    out.readerFontPx = Math.min(L.READER_FONT_MAX_PX, Math.max(L.READER_FONT_MIN_PX, Math.round(px)));
    return out;
  }

  /** An element of the page's document (it is shown in the shadow root): `attrs` as attributes. */
  function h(tag, attrs = {}, ...children) {
    const el = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs)) {
      if (value === true) el.setAttribute(name, "");
      else if (value !== false && value != null) el.setAttribute(name, String(value));
    }
    el.append(...children);
    return el;
  }

  function button(attrs, text) {
    return h("button", { type: "button", ...attrs }, text);
  }

  function choice(setting, value, text, attrs = {}) {
    return button({ "data-setting": setting, "data-value": value, ...attrs }, text);
  }

  /** The view's markup: toolbar, settings panel, status line, header, article. */
  function build() {
    const toolbar = h("nav", { class: "toolbar", "aria-label": "Reader", dir: "ltr", lang: "en" },
      button({ id: "close", title: "Back to the page (Esc)", "aria-label": "Back to the page" }, "\u2190"),
      h("span", { class: "spacer" }),
      button({ id: "copy", title: "Copy the article as Markdown" }, "Copy as Markdown"),
      button({ id: "save", title: "Save the article as a file" }, "Save"),
      h("select", { id: "format", "aria-label": "Save as", title: "Save as" },
        h("option", { value: "markdown" }, "Markdown"), h("option", { value: "text" }, "Text")),
      button({ id: "settings-button", title: "Type, width and theme", "aria-label": "Type, width and theme",
               "aria-expanded": "false", "aria-controls": "settings" }, "Aa"));
    const row = (label, ...items) => h("div", { class: "row", role: "group", "aria-label": label }, ...items);
    const settings = h("div", { id: "settings", class: "settings", role: "group", "aria-label": "Reader settings",
                                dir: "ltr", lang: "en", hidden: true },
      row("Typeface", choice("readerFont", "serif", "Serif", { class: "serif" }),
          choice("readerFont", "sans", "Sans", { class: "sans" })),
      row("Text size", button({ id: "smaller", title: "Smaller text", "aria-label": "Smaller text" }, "A\u2212"),
          h("output", { id: "size", "aria-live": "polite" }),
          button({ id: "larger", title: "Larger text", "aria-label": "Larger text" }, "A+")),
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
                      tabindex: "-1" }, toolbar, settings, status, main);
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

  /** Sanitised `nodes`, each wide table in a box of its own that scrolls sideways. */
  function articlePart(nodes, base) {
    const part = sanitizeNodes(nodes, base);
    for (const table of part.querySelectorAll("table")) {
      const box = h("div", { class: "table-scroll" });
      table.replaceWith(box);
      box.append(table);
    }
    return part;
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
    const source = article.url ? safeUrl(article.url, undefined, new Set(["http:", "https:"])) : null;
    renderHeader(article, source);
    // The host's article is the body alone: its headline, byline and dateline are the header above.
    const nodes = parseArticle(article.html);
    let split = 0;
    for (let chars = 0; split < nodes.length && chars < FIRST_SCREEN_CHARS; split++) chars += nodes[split].textContent.length;
    const body = root.getElementById("article");
    body.replaceChildren(articlePart(nodes.slice(0, split), source || undefined));
    return () => {
      // Without a direction from the host, the whole view (header included) follows the one the article's own
      // first letters gave it: read once the view is laid out, not before (it would lay it out early).
      if (!main.dir) main.dir = getComputedStyle(body).direction === "rtl" ? "rtl" : "ltr";
      return split < nodes.length ? articlePart(nodes.slice(split), source || undefined) : null;
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
    const field = h("textarea", { "aria-hidden": "true", style: "position: fixed; opacity: 0; inset: 0 auto auto 0" });
    field.value = text;
    view.root.append(field);
    field.select();
    const copied = document.execCommand("copy");
    field.remove();
    if (!copied) throw new Error("the browser refused");
  }

  async function copyMarkdown() {
    const { content } = articleDocument(view.article, "markdown");
    try {
      await writeClipboard(content);
      say("Copied the article as Markdown");
    } catch (error) {
      say(`Could not copy: ${error.message}. Use Save instead.`, true);
    }
  }

  async function save() {
    const format = view.root.getElementById("format").value === "text" ? "text" : "markdown";
    const current = view;
    try {
      // The background hands it to the browser's downloads (a content script has no downloads API).
      const doc = articleDocument(view.article, format);
      const reply = await api.runtime.sendMessage({ type: "pith.reader.save", doc });
      if (view !== current) return;
      if (reply && reply.ok) say(`Saved ${reply.filename}`);
      else say(`Could not save: ${(reply && reply.error && reply.error.title) || "no answer"}`, true);
    } catch (error) {
      if (view === current) say(`Could not save: ${error.message}`, true);
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
    $("settings-button").addEventListener("click", () => toggleSettings());
    $("copy").addEventListener("click", copyMarkdown);
    $("save").addEventListener("click", save);
    $("close").addEventListener("click", () => close());
    $("format").addEventListener("change", () => api.storage.local.set({ saveFormat: $("format").value }));
    $("article").addEventListener("click", followFragment);
    box.addEventListener("keydown", (event) => {
      if (event.key !== "Escape" || event.defaultPrevented || !event.isTrusted) return;
      event.preventDefault();
      if (!$("settings").hidden) toggleSettings(false);
      else close();
    });
    for (const type of CONTAINED) box.addEventListener(type, (event) => event.stopPropagation());
  }

  /** Settings changed in another reader (another tab) apply here too. */
  function storageListener(current) {
    return (changes, area) => {
      const writer = changes.readerSettingsWriter && changes.readerSettingsWriter.newValue;
      if (area !== "local" || !writer || writer.startsWith(`${current.writer}:`) || view !== current) return;
      const update = {};
      for (const name of SETTINGS) if (name in changes) update[name] = changes[name].newValue;
      applySettings(valid({ ...current.settings, ...update }));
    };
  }

  /** Show `article` ({title, html, url, ...: the metadata; `notice`, a line for the status; markdown,
   * front_matter and text may follow in `complete`}) over the page, with the stored `settings` and the view's
   * stylesheet `css`. Returns once the first screen is in the view (the rest follows after the first frame):
   * {shownAt}, on the page's clock. */
  function open(article, settings, css) {
    close();
    const host = document.createElement("pith-reader");
    // The critical placement inline as well: were the stylesheet refused, the view still covers the page.
    host.style.cssText = "all: initial !important; display: block !important; position: fixed !important;"
      + " inset: 0 !important; z-index: 2147483647 !important;";
    host.setAttribute("popover", "manual");
    const root = host.attachShadow({ mode: "closed" });
    globalThis.pithStyleShadow(root, css);
    const box = build();
    root.append(box);
    view = { host, root, article, settings: null, writer: Math.random().toString(36).slice(2), writes: 0,
             statusTimer: null, onStorage: null, focus: document.activeElement };
    view.onStorage = storageListener(view);
    api.storage.onChanged.addListener(view.onStorage);
    applySettings(valid(settings || {}));
    root.getElementById("format").value = settings && settings.saveFormat === "text" ? "text" : "markdown";
    wire(root, box);
    // Copy and Save wait for the article's text and Markdown (`complete`), unless they came with it.
    if (typeof article.markdown !== "string") {
      for (const id of ["copy", "save"]) root.getElementById(id).disabled = true;
    }
    const rest = render(article);
    if (globalThis.__pithToast) globalThis.__pithToast.hide();  // the reader is the result
    (document.documentElement || document).append(host);
    if (typeof host.showPopover === "function") host.showPopover();  // the top layer: over anything the page has
    box.focus({ preventScroll: true });  // keys (space, arrows, Esc) go to the view, not the page
    host.setAttribute(STATE, "shown");
    if (article.notice) say(article.notice);
    const shownAt = performance.timeOrigin + performance.now();
    const current = view;
    afterPaint().then(() => {
      if (view !== current) return;
      const more = rest();
      if (more) root.getElementById("article").append(more);
      host.setAttribute(STATE, "ready");
    });
    return { shownAt };
  }

  /** The rest of the article shown ({text, markdown, front_matter}), for Copy and Save, which wait for it. */
  function complete(rest) {
    if (!view) return false;
    Object.assign(view.article, rest);
    for (const id of ["copy", "save"]) view.root.getElementById(id).disabled = false;
    return true;
  }

  /** Remove the view (if one is open): the page is as it was. Returns whether one was open. */
  function close() {
    if (!view) return false;
    const { host, onStorage, statusTimer, focus } = view;
    view = null;
    clearTimeout(statusTimer);
    api.storage.onChanged.removeListener(onStorage);
    host.remove();
    if (focus && focus.isConnected && typeof focus.focus === "function") focus.focus({ preventScroll: true });
    return true;
  }

  globalThis.__pithReader = {
    open,
    complete,
    close,
    active: () => view !== null && view.host.isConnected,
    // For tests, in this isolated world only (the page's scripts cannot see it): the view's shadow root.
    root: () => (view ? view.root : null),
  };
})();
