// The saved document: an article with its metadata on top, under a file name that is safe on every system the
// browser runs on. Pure functions, shared by the background's Save (background/save.js) and the reader's Copy
// as Markdown and Save (reader/reader.js, in the page); tests/test_extension_units.py runs them in the browser.
// A classic script (injected into pages before the reader) that modules import too, so it only assigns a global.
(() => {
  "use strict";
  if (globalThis.PITH_DOCUMENT) return;
  const L = globalThis.PITH_LIMITS;
  // Device names Windows reserves, with any extension ("con.tar.md" opens the console too).
  const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(\s*\..*)?$/i;
  const utf8 = new TextEncoder();
  // What a terminal obeys (every C0 control but tab and newline, DEL, every C1 control): a saved file that is
  // printed must not move the cursor or write the clipboard (OSC 52). native_host/pipeline/inert.py's
  // TERMINAL_CONTROLS, written into limits.js by native_host/contracts.py.
  const TERMINAL_CONTROLS = new RegExp(globalThis.PITH_CONTRACTS.TERMINAL_CONTROLS, "g");
  const plain = (value) => String(value || "").replace(TERMINAL_CONTROLS, "");

  /** A file name without its extension, from a page title: the title as it reads (apostrophes, dashes, accents,
   * emoji), less what Windows, macOS or Linux refuse or read as a path; never a dot file, a device name or
   * empty, short enough in UTF-8 bytes for any file system. native_host/files.py's safe_stem is its twin
   * (tests/test_files.py runs both on tests/filename_cases.py). Its own result gives it back. */
  function safeStem(title) {
    let name = String(title || "").normalize("NFC").replace(/: /g, " - ")
      .replace(/[<>:"/\\|?*]/g, (c) => (c === '"' ? "'" : " "))  // what a file system refuses or reads as a path
      .replace(/[\p{Cc}\p{Zs}\p{Zl}\p{Zp}]/gu, " ")                 // controls and every kind of space
      .replace(/(?![\u200c\u200d])\p{C}/gu, "")                      // bidi overrides, zero widths; not the joiners
      .replace(/ +/g, " ")
      .replace(/^[ .]+/, "");
    const chars = Array.from(name).slice(0, L.MAX_FILENAME_CHARS);
    while (utf8.encode(chars.join("")).length > L.MAX_FILENAME_BYTES) chars.pop();
    name = chars.join("").replace(/[ .]+$/, "");
    if (!name) name = "article";
    if (WINDOWS_RESERVED.test(name)) name = `article ${name}`;
    return name;
  }

  function safeFilename(title, extension) {
    return `${safeStem(title)}.${extension}`;
  }

  /** The save location's folder inside Downloads, from what the options hold ("Clippings/Pith"): {folder}, ""
   * for Downloads itself, or {error} naming a part that could not be a folder on every system. */
  function saveFolder(text) {
    const parts = String(text || "").split(/[\\/]+/).filter((part) => part !== "");
    for (const part of parts) {
      if (safeStem(part) !== part) {
        return { error: `"${part}" cannot be a folder name on every system: try "${safeStem(part)}"` };
      }
    }
    return { folder: parts.join("/") };
  }

  /** The saved document: {filename, mime, content}. `format` is "markdown" or "text". The article carries the
   * host's fields and, where the background added them, the user's `template` (extension/template.js, the
   * options page), the `created` moment and the page's `selection`: the file's name and head come from the
   * template, by the rule of native_host/render/document.py (the head, a blank line, the body). */
  function articleDocument(article, format) {
    const T = globalThis.PITH_TEMPLATE;
    const template = article.template && !T.templateErrors(article.template).length ? article.template
      : T.DEFAULT_TEMPLATE;
    const [name, parts] = T.documentParts(article, format === "text" ? "text" : "markdown", template,
                                          article.created || T.nowIso(), article.selection || "");
    const content = plain(parts);  // the host leaves no terminal control in the article; the page's title may hold some
    return format === "text" ? { filename: safeFilename(name, "txt"), mime: "text/plain", content }
      : { filename: safeFilename(name, "md"), mime: "text/markdown", content };
  }

  // Images saved beside the Markdown: the twins of native_host/render/document.py's image_links, image_type,
  // image_name and with_local_images (tests/template_cases.json holds the cases both run).
  const IMAGE = () => /!\[((?:[^\]\\\n]|\\.)*)\]\((<[^>\n]*>|(?:[^()\s\\]|\\.)+)\)/g;
  const address = (written) => (written.startsWith("<") ? written.slice(1, -1) : written).replace(/\\(.)/g, "$1");

  function imageLinks(markdown) {
    const seen = [];
    for (const found of markdown.matchAll(IMAGE())) {
      const url = address(found[2]);
      if (url && !seen.includes(url)) seen.push(url);
    }
    return seen;
  }

  const MAGIC = [[[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "png"], [[0xff, 0xd8, 0xff], "jpg"],
                 [[0x47, 0x49, 0x46, 0x38, 0x37, 0x61], "gif"], [[0x47, 0x49, 0x46, 0x38, 0x39, 0x61], "gif"],
                 [[0x42, 0x4d], "bmp"]];
  const ascii = (bytes, from, to) => String.fromCharCode(...bytes.subarray(from, to));

  /** The extension of an image from its first bytes (SVG never: opened on its own it runs scripts); null else. */
  function imageType(bytes) {
    for (const [magic, ext] of MAGIC) if (magic.every((b, i) => bytes[i] === b)) return ext;
    if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 12) === "WEBP") return "webp";
    if (["ftypavif", "ftypavis"].includes(ascii(bytes, 4, 12))) return "avif";
    return null;
  }

  /** Where an image goes beside the Markdown: named by its content. */
  async function imageName(bytes, ext) {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const hex = Array.from(digest.subarray(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
    return `images/${hex}.${ext}`;
  }

  function withLocalImages(markdown, local) {
    return markdown.replace(IMAGE(), (whole, alt, written) => {
      const url = address(written);
      return Object.hasOwn(local, url) ? `![${alt}](${local[url]})` : whole;
    });
  }

  globalThis.PITH_DOCUMENT = Object.freeze({ safeStem, safeFilename, saveFolder, articleDocument, imageLinks, imageType,
                                             imageName, withLocalImages });
})();
