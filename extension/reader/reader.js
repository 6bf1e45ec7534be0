// The reader view: the article the background stored (session storage, trusted extension pages only),
// rendered through the allowlist in sanitize.js, with the reader's own settings (theme, text size).
import "../limits.js";
import { safeUrl, sanitize } from "./sanitize.js";
import { isHeadline } from "../background/save.js";

const L = globalThis.PITH_LIMITS;
const api = globalThis.browser ?? globalThis.chrome;
const THEMES = ["auto", "light", "dark"];
const $ = (id) => document.getElementById(id);

function applySettings({ readerTheme = "auto", readerFontPx = L.READER_FONT_DEFAULT_PX }) {
  const theme = THEMES.includes(readerTheme) ? readerTheme : "auto";
  const px = Math.min(L.READER_FONT_MAX_PX, Math.max(L.READER_FONT_MIN_PX, Number(readerFontPx) || L.READER_FONT_DEFAULT_PX));
  document.documentElement.dataset.theme = theme;
  document.documentElement.style.setProperty("--font-size", `${px}px`);
  $("theme").textContent = `Theme: ${theme}`;
  return { readerTheme: theme, readerFontPx: px };
}

async function settings() {
  return applySettings(await api.storage.local.get(["readerTheme", "readerFontPx"]));
}

async function change(update) {
  const current = await settings();
  await api.storage.local.set(applySettings({ ...current, ...update(current) }));
}

function showProblem(text) {
  $("title").textContent = "Nothing to show";
  const box = $("problem");
  box.textContent = text;
  box.hidden = false;
}

function render(article) {
  const title = article.title || "Untitled";
  document.title = title;
  $("title").textContent = title;
  if (article.lang && /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(article.lang)) {
    document.documentElement.lang = article.lang;
  }
  if (article.byline) {
    $("byline").textContent = article.byline;
    $("byline").hidden = false;
  }
  const source = article.url ? safeUrl(article.url, undefined, new Set(["http:", "https:"])) : null;
  if (source) {
    $("site").textContent = new URL(source).hostname;
    $("source").href = source;
    $("source").textContent = source;
    $("source-line").hidden = false;
  }
  const body = sanitize(article.html, source || undefined);
  // The host's article starts with the headline and byline; the header shows them already (the title may
  // add the site's name).
  for (let first = body.firstElementChild, index = 0; first; first = body.firstElementChild, index++) {
    const text = first.textContent.trim();
    const headline = index === 0 && /^h[12]$/.test(first.localName) && isHeadline(text, title);
    if (!headline && !(article.byline && text === article.byline.trim())) break;
    first.remove();
  }
  $("article").replaceChildren(body);
}

async function main() {
  $("smaller").addEventListener("click", () => change((s) => ({ readerFontPx: s.readerFontPx - 1 })));
  $("larger").addEventListener("click", () => change((s) => ({ readerFontPx: s.readerFontPx + 1 })));
  $("theme").addEventListener("click", () => change((s) => ({
    readerTheme: THEMES[(THEMES.indexOf(s.readerTheme) + 1) % THEMES.length] })));
  await settings();
  const key = decodeURIComponent(location.hash.slice(1));
  const stored = key.startsWith("article:") ? (await api.storage.session.get(key))[key] : null;
  if (!stored || !stored.article) {
    showProblem("This reader view has expired (the browser was restarted or too many articles were opened since). "
      + "Go back to the page and choose Reader again.");
    return;
  }
  render(stored.article);
  document.documentElement.dataset.ready = "true";
}

main().catch((error) => showProblem(`The article could not be shown: ${error.message}`));
