// The saved document: an article with its metadata on top, under a file name that is safe on every system the
// browser runs on. Pure functions, shared by the background's Save (background/save.js) and the reader's Copy
// as Markdown and Save (reader/reader.js, in the page); tests/test_extension_units.py runs them in the browser.
// A classic script (injected into pages before the reader) that modules import too, so it only assigns a global.
(() => {
  "use strict";
  if (globalThis.PITH_DOCUMENT) return;
  const L = globalThis.PITH_LIMITS;
  // Device names Windows reserves, with any extension ("con.tar.md" opens the console too).
  const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\s*\..*)?$/i;
  const utf8 = new TextEncoder();
  // What a terminal obeys (every C0 control but tab and newline, DEL, every C1 control): a saved file that is
  // printed must not move the cursor or write the clipboard (OSC 52). native_host/pipeline/inert.py's
  // TERMINAL_CONTROLS; tests/test_extension_files.py checks the two are one class.
  const TERMINAL_CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
  const plain = (value) => String(value || "").replace(TERMINAL_CONTROLS, "");

  /** A file name from a title: letters, digits and a little punctuation, never a path, a dot file, a device
   * name or empty, short enough in UTF-8 bytes for any file system. native_host/cli/files.py's safe_filename
   * follows the same rules (tests/test_files.py runs both on the same titles). */
  function safeFilename(title, extension) {
    let name = String(title || "").normalize("NFC")
      .replace(/[^\p{L}\p{M}\p{N} _\-.,()[\]]+/gu, " ")  // path separators, quotes, controls, emoji...
      .replace(/\s+/g, " ")
      .replace(/^[ .]+/, "");
    const chars = Array.from(name).slice(0, L.MAX_FILENAME_CHARS);
    while (utf8.encode(chars.join("")).length > L.MAX_FILENAME_BYTES) chars.pop();
    name = chars.join("").replace(/[ .]+$/, "");
    if (!name) name = "article";
    if (WINDOWS_RESERVED.test(name)) name = `article ${name}`;
    return `${name}.${extension}`;
  }

  /** The saved document: {filename, mime, content}. `format` is "markdown" or "text". The host's article is
   * the body alone (its headline, byline and dateline are metadata, native_host/pipeline/metadata.py): a
   * Markdown file opens with the YAML front matter the host built (`article.front_matter`: one builder for the
   * CLI and the extension), a text file with the title, byline and source. Neither holds a terminal control:
   * the host leaves none in the article, and the page's title and byline lose theirs here. */
  function articleDocument(article, format) {
    const title = plain(article.title).replace(/\s+/g, " ").trim() || "Untitled";
    if (format === "text") {
      const head = [title, "=".repeat(Math.min(Array.from(title).length, 80)), ""];
      if (article.byline) head.push(plain(article.byline).replace(/\s+/g, " ").trim());
      if (article.url) head.push(`Source: ${plain(article.url)}`);
      return { filename: safeFilename(title, "txt"), mime: "text/plain",
               content: `${head.join("\n")}\n\n${plain(article.text).trim()}\n` };
    }
    const head = article.front_matter ? `${plain(article.front_matter)}\n` : "";
    const body = plain(article.markdown).replace(/^\n+|\n+$/g, "");
    return { filename: safeFilename(title, "md"), mime: "text/markdown", content: `${head}${body ? `${body}\n` : ""}` };
  }

  globalThis.PITH_DOCUMENT = Object.freeze({ safeFilename, articleDocument });
})();
