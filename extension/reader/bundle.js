// Written by `python -m scripts.bundle` from reader/reader.js and the modules it imports: do not edit.
// Each module runs once, in the order the browser would run them as modules, in a function of its own.

// ---- limits.js
(() => {
// Written by `python -m native_host.contracts` from native_host/ (limits.py, pipeline/, errors.py): do not edit.
// Loaded both as a classic script (injected into pages before the content scripts) and as a module
// (imported by the background), so it only assigns globals.
globalThis.PITH_LIMITS = Object.freeze({
  MAX_NODES: 200000,
  MAX_NODE_TEXT: 100000,
  MAX_TOTAL_TEXT: 20000000,
  MAX_ATTR_CHARS: 2048,
  MAX_IMAGE_PX: 100000,
  MAX_CLASSES: 32,
  MAX_META: 256,
  MAX_LINKS: 32,
  MAX_JSON_LD: 32,
  MAX_JSON_LD_CHARS: 100000,
  MAX_TAG_CHARS: 64,
  MAX_TITLE_CHARS: 4096,
  MAX_LANG_CHARS: 64,
  DATE_ATTRIBUTES: Object.freeze(["datetime", "publishdate", "publish-date", "published", "data-published", "data-publishdate", "data-publish-date", "data-published-date", "data-publicationdate", "data-pubdate", "date-time", "data-date", "data-datetime", "data-timestamp"]),
  MAX_REQUEST_BYTES: 67108864,
  MAX_FILENAME_CHARS: 100,
  MAX_FILENAME_BYTES: 200,
  MAX_TEMPLATE_BYTES: 16384,
  MAX_TEMPLATE_PROPERTIES: 50,
  MAX_SAVED_IMAGES: 100,
  MAX_IMAGE_BYTES: 20971520,
  FIRST_SCREEN_CHARS: 4000,
  HOST_NAME: "org.pith.reader",
  HELLO_TIMEOUT_MS: 60000,  // the first request loads the model: allow for a cold disk
  HOST_EARLY_RETRY_MS: 600000,  // after a start ahead of the click fails, none is tried for this long
  EXTRACT_TIMEOUT_MS: 60000,  // base allowance for one extraction...
  EXTRACT_TIMEOUT_MS_PER_MB: 5000,  // ...plus this much per MB of snapshot JSON
  PROGRESS_AFTER_MS: 400,  // show "working" only when a step takes longer than this
  TOAST_MS: 6000,  // how long a success note stays on the page (errors stay until closed)
  FRAME_WAIT_MS: 10000,  // the reader's frame loads and shows its article within this, or the run fails
  BLOB_URL_LIFETIME_MS: 60000,  // a saved article's download URL lives this long (the download reads it at once)
  READER_FONT_MIN_PX: 14,  // the reader's text size: smallest...
  READER_FONT_MAX_PX: 28,  // ...largest...
  READER_FONT_DEFAULT_PX: 19,  // ...and at first
});
globalThis.PITH_CONTRACTS = Object.freeze({
  SKIP_SUBTREE: Object.freeze(["head", "noscript", "script", "style", "template"]),
  LEAF_ONLY: Object.freeze(["audio", "canvas", "embed", "iframe", "object", "select", "svg", "video"]),
  TEX_SCRIPT: Object.freeze(["math/tex", "mode=display"]),
  INLINE: Object.freeze(["a", "abbr", "acronym", "b", "bdi", "bdo", "big", "br", "cite", "code", "data", "del", "dfn", "em", "font", "i", "ins", "kbd", "label", "mark", "nobr", "q", "rp", "rt", "ruby", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr"]),
  META_KEYS: Object.freeze(["name", "property", "itemprop"]),
  LINK_RELS: Object.freeze(["author", "canonical"]),
  DIRS: Object.freeze(["auto", "ltr", "rtl"]),
  HTML_TAGS: Object.freeze({"blockquote": Object.freeze(["id"]), "caption": Object.freeze(["id"]), "dd": Object.freeze(["id"]), "dl": Object.freeze(["id"]), "dt": Object.freeze(["id"]), "figcaption": Object.freeze(["id"]), "figure": Object.freeze(["id"]), "h1": Object.freeze(["id"]), "h2": Object.freeze(["id"]), "h3": Object.freeze(["id"]), "h4": Object.freeze(["id"]), "h5": Object.freeze(["id"]), "h6": Object.freeze(["id"]), "li": Object.freeze(["id"]), "ol": Object.freeze(["id"]), "p": Object.freeze(["id"]), "pre": Object.freeze(["class", "id"]), "table": Object.freeze(["id"]), "tbody": Object.freeze(["id"]), "td": Object.freeze(["id"]), "tfoot": Object.freeze(["id"]), "th": Object.freeze(["id"]), "thead": Object.freeze(["id"]), "tr": Object.freeze(["id"]), "ul": Object.freeze(["id"]), "abbr": Object.freeze(["id"]), "cite": Object.freeze(["id"]), "code": Object.freeze(["class", "id"]), "em": Object.freeze(["id"]), "mark": Object.freeze(["id"]), "q": Object.freeze(["id"]), "s": Object.freeze(["id"]), "span": Object.freeze(["id"]), "strong": Object.freeze(["id"]), "sub": Object.freeze(["id"]), "sup": Object.freeze(["id"]), "a": Object.freeze(["href", "id"]), "img": Object.freeze(["src", "alt", "width", "height", "class"]), "br": Object.freeze([]), "hr": Object.freeze([]), "section": Object.freeze(["class"]), "time": Object.freeze(["datetime"])}),
  MATHML_TAGS: Object.freeze({"annotation": Object.freeze([]), "math": Object.freeze(["display"]), "menclose": Object.freeze([]), "merror": Object.freeze([]), "mfrac": Object.freeze([]), "mi": Object.freeze([]), "mmultiscripts": Object.freeze([]), "mn": Object.freeze([]), "mo": Object.freeze([]), "mover": Object.freeze([]), "mpadded": Object.freeze([]), "mphantom": Object.freeze([]), "mprescripts": Object.freeze([]), "mroot": Object.freeze([]), "mrow": Object.freeze([]), "ms": Object.freeze([]), "mspace": Object.freeze([]), "msqrt": Object.freeze([]), "mstyle": Object.freeze([]), "msub": Object.freeze([]), "msubsup": Object.freeze([]), "msup": Object.freeze([]), "mtable": Object.freeze([]), "mtd": Object.freeze([]), "mtext": Object.freeze([]), "mtr": Object.freeze([]), "munder": Object.freeze([]), "munderover": Object.freeze([]), "none": Object.freeze([]), "semantics": Object.freeze([])}),
  ERROR_CODES: Object.freeze(["bad_input", "bad_request", "bad_snapshot", "cannot_write", "internal", "missing_extra", "model_unavailable", "not_html", "timeout", "too_large", "unknown_type", "unsupported_version"]),
  METADATA_FIELDS: Object.freeze(["url", "title", "byline", "date", "modified", "lang", "dir", "site_name", "description", "canonical_url", "image", "page_type", "shape", "word_count", "reading_minutes", "tags"]),
  SHAPES: Object.freeze(["article", "forum", "listing", "product", "documentation"]),
  TERMINAL_CONTROLS: "[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f]",
});
})();

// ---- template.js
(() => {
// Save templates: the saved file's name and properties from `{{variable|filter:arg}}` strings. The twin of
// native_host/render/document.py, which says the rule; tests/template_cases.json holds the cases both must
// pass (tests/test_document.py runs this file under Node, tests/test_extension_units.py in both browsers).
// A classic script (injected into pages before the reader) that modules and the options page load too.
(() => {
  "use strict";
  if (globalThis.PITH_TEMPLATE) return;
  const L = globalThis.PITH_LIMITS;

  const DEFAULT_TEMPLATE = Object.freeze({
    name: "{{title}}",
    properties: Object.freeze({
      title: "{{title}}",
      source: "{{url}}",
      author: Object.freeze(["{{author}}"]),
      published: "{{published|date:YYYY-MM-DD}}",
      created: "{{created|date:YYYY-MM-DD}}",
      site: "{{site}}",
      description: "{{description}}",
      tags: Object.freeze(["clippings"]),
    }),
  });
  const VARIABLES = ["title", "author", "published", "modified", "created", "site", "url", "description", "tags",
                     "page_type", "words", "reading_time", "lang", "image", "selection"];
  const FILTERS = ["date", "slug", "lower", "upper", "join", "default"];
  const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                  "October", "November", "December"];

  const KEY = /^[A-Za-z_](?:[A-Za-z0-9 _-]*[A-Za-z0-9_-])?$/;
  const EXPRESSION = () => /\{\{((?:(?!\}\})[\s\S])*)\}\}/g;
  const WHOLE = /^\{\{((?:(?!\}\})[\s\S])*)\}\}$/;
  const VARIABLE = /^\s*([a-z_]+)\s*/;
  const FILTER = () => /\|\s*([a-z_]+)\s*(?::\s*("[^"]*"|'[^']*'|[^|"']*))?\s*/y;
  const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[T ]([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?)?/;
  const ISO_DATE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9]{2}:[0-9]{2}(?::[0-9]{2})?(?:Z|[+-][0-9]{2}:[0-9]{2})?)?$/;
  const DATE_TOKENS = /\[[^\]]*\]|YYYY|YY|MMMM|MMM|MM|M|DD|D|HH|H|mm|ss/g;
  // eslint-disable-next-line no-control-regex -- the characters YAML may not carry, replaced on purpose
  const YAML_UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x84\x86-\x9f\u2028\u2029\ufffe\uffff\p{Cs}]/gu;
  const BLANKS = /[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u202f\u205f\u3000\ufeff]+/g;
  const utf8 = new TextEncoder();

  // --- reading a template -----------------------------------------------------------------------------------

  /** [variable, [[filter, arg|null]...]] for one `{{ }}`'s inside, or the problem with it (a string). */
  function expression(text) {
    const found = VARIABLE.exec(text);
    if (!found) return `cannot read "{{${text}}}": it should start with a variable, such as {{title}}`;
    const variable = found[1];
    let at = found[0].length;
    const filters = [];
    if (!VARIABLES.includes(variable)) return `unknown variable "${variable}" (known: ${VARIABLES.join(", ")})`;
    while (at < text.length) {
      const re = FILTER();
      re.lastIndex = at;
      const step = re.exec(text);
      if (!step || re.lastIndex === at) return `cannot read "{{${text}}}": filters go as |name or |name:argument`;
      const name = step[1];
      let arg = step[2] === undefined ? null : step[2];
      if (!FILTERS.includes(name)) return `unknown filter "${name}" (known: ${FILTERS.join(", ")})`;
      if (arg !== null) arg = (arg[0] === '"' || arg[0] === "'") && arg.length > 1 ? arg.slice(1, -1) : arg.trim();
      filters.push([name, arg]);
      at = re.lastIndex;
    }
    return [variable, filters];
  }

  function stringErrors(where, text) {
    const errors = [];
    for (const found of text.matchAll(EXPRESSION())) {
      const parsed = expression(found[1]);
      if (typeof parsed === "string") errors.push(`${where}: ${parsed}`);
    }
    if (text.replace(EXPRESSION(), "").includes("{{")) errors.push(`${where}: "{{" without its "}}"`);
    return errors;
  }

  const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

  /** Every problem with a parsed template, one line each; [] when it can be used. */
  function templateErrors(template) {
    if (!isObject(template)) return ['the template is not a JSON object: give {"name": "...", "properties": {...}}'];
    const errors = Object.keys(template).filter((key) => key !== "name" && key !== "properties")
      .map((key) => `the template has an unknown key "${key}": it holds "name" and "properties"`);
    const { name, properties } = template;
    if (typeof name !== "string" || !name.trim()) errors.push('"name" must be a non-empty string, such as "{{title}}"');
    else errors.push(...stringErrors("name", name));
    if (!isObject(properties)) {
      errors.push('"properties" must be an object of property names and values');
      return errors;
    }
    const keys = Object.keys(properties);
    if (keys.length > L.MAX_TEMPLATE_PROPERTIES) {
      errors.push(`the template has ${keys.length} properties; at most ${L.MAX_TEMPLATE_PROPERTIES}`);
    }
    for (const key of keys) {
      const value = properties[key];
      if (!KEY.test(key) || key.length > 64) {
        errors.push(`property name "${key}": letters, digits, spaces, "_" and "-" only, at most 64`);
      }
      if (typeof value === "string") errors.push(...stringErrors(`properties.${key}`, value));
      else if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
        for (const item of value) errors.push(...stringErrors(`properties.${key}`, item));
      } else errors.push(`properties.${key} must be a string or a list of strings`);
    }
    return errors;
  }

  /** {template} from JSON text, or {errors}. */
  function parseTemplate(text) {
    if (utf8.encode(String(text)).length > L.MAX_TEMPLATE_BYTES) {
      return { errors: [`the template is larger than ${L.MAX_TEMPLATE_BYTES} bytes`] };
    }
    let template;
    try {
      template = JSON.parse(text);
    } catch (error) {
      return { errors: [`the template is not JSON (${error.message})`] };
    }
    const errors = templateErrors(template);
    return errors.length ? { errors } : { template };
  }

  // --- the variables and filters ------------------------------------------------------------------------------

  /** This moment on the local clock, with its offset: what `created` holds. */
  function nowIso(date = new Date()) {
    const pad = (n) => String(Math.abs(n)).padStart(2, "0");
    const offset = -date.getTimezoneOffset();
    return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:`
      + `${pad(date.getMinutes())}:${pad(date.getSeconds())}${offset >= 0 ? "+" : "-"}`
      + `${pad(Math.trunc(offset / 60))}:${pad(offset % 60)}`;
  }

  /** The template's variables from an article (the host's reply `article`). */
  function variables(fields, created, selection = "") {
    const tags = fields.tags;
    const image = fields.image;
    return {
      title: fields.title || "", author: fields.byline || "", published: fields.date || "",
      modified: fields.modified || "", created, site: fields.site_name || "",
      url: fields.canonical_url || fields.url || "", description: fields.description || "",
      tags: Array.isArray(tags) ? tags.filter((t) => typeof t === "string") : [],
      page_type: fields.page_type || "", words: Math.trunc(Number(fields.word_count) || 0),
      reading_time: Math.trunc(Number(fields.reading_minutes) || 0), lang: fields.lang || "",
      image: (isObject(image) && image.url) || "", selection: selection || "",
    };
  }

  /** An ISO date in `pattern` (YYYY YY MMMM MMM MM M DD D HH H mm ss, [literal]), on the date's own clock. */
  function formatDate(value, pattern) {
    const found = DATE.exec(value);
    if (!found) return "";
    const [, y, month, d] = found;
    const mo = Number(month);
    const [h, mi, s] = [found[4] || "00", found[5] || "00", found[6] || "00"];
    if (mo < 1 || mo > 12) return "";
    const parts = { YYYY: y, YY: y.slice(2), MMMM: MONTHS[mo - 1], MMM: MONTHS[mo - 1].slice(0, 3),
                    MM: String(mo).padStart(2, "0"), M: String(mo), DD: d, D: String(Number(d)), HH: h,
                    H: String(Number(h)), mm: mi, ss: s };
    return pattern.replace(DATE_TOKENS, (t) => (t[0] === "[" ? t.slice(1, -1) : parts[t]));
  }

  function slug(text) {
    return text.toLowerCase().normalize("NFKD").replace(/\p{M}/gu, "").replace(/[^\p{L}\p{N}]/gu, " ")
      .split(" ").filter(Boolean).join("-");
  }

  const asText = (value) => (Array.isArray(value) ? value.join(", ") : value == null ? "" : String(value));
  const each = (value, apply) => (Array.isArray(value) ? value.map(apply) : apply(asText(value)));

  function apply(value, name, arg) {
    if (name === "date") return each(value, (v) => formatDate(v, arg ?? "YYYY-MM-DD"));
    if (name === "slug") return each(value, slug);
    if (name === "lower") return each(value, (v) => v.toLowerCase());
    if (name === "upper") return each(value, (v) => v.toUpperCase());
    if (name === "join") return Array.isArray(value) ? value.join(arg ?? ", ") : value;
    if (name === "default") return value === "" || value == null || (Array.isArray(value) && !value.length) ? arg || "" : value;
    throw new Error(name);
  }

  /** A template string filled in: a lone expression keeps its value's kind (a list, a number). */
  function renderString(text, values) {
    const evaluate = (inside) => {
      const [variable, filters] = expression(inside);
      let value = values[variable];
      for (const [name, arg] of filters) value = apply(value, name, arg);
      return value;
    };
    const whole = WHOLE.exec(text);
    if (whole) return evaluate(whole[1]);
    return text.replace(EXPRESSION(), (_, inside) => asText(evaluate(inside)));
  }

  const clean = (text) => text.replace(YAML_UNSAFE, " ").replace(BLANKS, " ").replace(/^ +| +$/g, "");

  /** [[key, value]...] in the template's order, empty ones left out. */
  function properties(template, values) {
    const out = [];
    for (const [key, spec] of Object.entries(template.properties)) {
      let value;
      if (Array.isArray(spec)) {
        const items = [];
        for (const item of spec) {
          const v = renderString(item, values);
          if (Array.isArray(v)) items.push(...v.map((x) => clean(asText(x))));
          else items.push(clean(asText(v)));
        }
        value = items.filter(Boolean);
      } else {
        value = renderString(spec, values);
        if (Array.isArray(value)) value = value.filter((v) => clean(asText(v))).map((v) => clean(asText(v)));
        else if (typeof value !== "number") value = clean(value);
      }
      if (value !== "" && !(Array.isArray(value) && !value.length)) out.push([key, value]);
    }
    return out;
  }

  const yamlScalar = (value) => (typeof value === "number" || ISO_DATE.test(value) ? String(value)
    : `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`);

  function frontMatter(props) {
    const lines = [];
    for (const [key, value] of props) {
      if (Array.isArray(value)) lines.push(`${key}:`, ...value.map((item) => `  - ${yamlScalar(item)}`));
      else lines.push(`${key}: ${yamlScalar(value)}`);
    }
    return lines.length ? `---\n${lines.map((line) => `${line}\n`).join("")}---\n` : "";
  }

  function textHead(props, title) {
    title = clean(title) || "Untitled";
    const lines = [title, "=".repeat(Math.min(Array.from(title).length, 80))];
    const rest = props.filter(([key]) => key !== "title")
      .map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(", ") : value}`);
    return `${lines.concat(rest.length ? ["", ...rest] : []).join("\n")}\n`;
  }

  /** [file name stem as the template gives it (not yet made safe), the document's text] for `format`
   * "markdown" or "text": the head, a blank line, the body. */
  function documentParts(fields, format, template = DEFAULT_TEMPLATE, created = nowIso(), selection = "") {
    const values = variables(fields, created, selection);
    const props = properties(template, values);
    const name = clean(asText(renderString(template.name, values)));
    const body = String((format === "markdown" ? fields.markdown : fields.text) || "").replace(/^\n+|\n+$/g, "");
    let head;
    if (format === "markdown") head = frontMatter(props);
    else {
      const title = props.find(([key, value]) => key === "title" && typeof value === "string");
      head = textHead(props, title ? title[1] : values.title);
    }
    return [name, (head ? `${head}\n` : "") + (body ? `${body}\n` : "")];
  }

  /** A template as the options page shows it: one line a property. */
  function formatTemplate(template) {
    const lines = Object.entries(template.properties).map(([key, value]) => `    ${JSON.stringify(key)}: ${JSON.stringify(value)}`);
    return `{\n  "name": ${JSON.stringify(template.name)},\n  "properties": {\n${lines.join(",\n")}\n  }\n}\n`;
  }

  globalThis.PITH_TEMPLATE = Object.freeze({ DEFAULT_TEMPLATE, VARIABLES, FILTERS, parseTemplate, templateErrors,
                                             documentParts, nowIso, formatTemplate });
})();
})();

// ---- article_document.js
(() => {
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
})();

// ---- reader/sanitize.js
(() => {
// The reader's allowlist: article HTML from the host (built from a web page, so attacker-controlled) becomes
// DOM nodes of the reader only through this pass.
//
// The markup is parsed with DOMParser into an inert document (no scripts run, nothing loads), then walked and
// rebuilt element by element with createElement(NS): only the tags below survive, each with only its listed
// attributes; URLs must resolve to http(s) (mailto for links); everything else is dropped with its content
// (scripts, styles, frames, forms, SVG) or unwrapped to its text (unknown containers). No style or event-handler
// attribute ever reaches the reader.
//
// A classic script: injected into the page (the extension's isolated world) before reader/reader.js, and
// imported by tests as a module, so it only assigns a global.

(() => {
  "use strict";
  if (globalThis.PITH_SANITIZE) return;

  // Exactly what the host's article HTML holds (native_host/pipeline/article.py's HTML_TAGS and MATHML_TAGS, written
  // into limits.js by native_host/contracts.py): each tag with the attributes it may carry.
  const { HTML_TAGS, MATHML_TAGS } = globalThis.PITH_CONTRACTS;
  // Dropped with everything inside: never reading matter, or a way to run or load something.
  const DROP = new Set(`script style template iframe frame frameset object embed applet svg noscript form input
  button select textarea option optgroup datalist link meta base title head canvas video audio source track picture
  dialog portal slot map area param`.split(/\s+/));
  const HTML_NS = "http://www.w3.org/1999/xhtml";
  const MATHML_NS = "http://www.w3.org/1998/Math/MathML";
  const LINK_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);
  const IMAGE_PROTOCOLS = new Set(["http:", "https:"]);
  const LANGUAGE_CLASS = /^language-[A-Za-z0-9_+#.-]{1,32}$/;
  const SHAPE_CLASS = /^pith-[a-z]{1,16}$/;  // a part of the reader's form: a post, the items (pipeline/shape.py)
  const DISPLAYS = new Set(["block", "inline"]);
  const PIXELS = /^[1-9][0-9]{0,5}$/;  // a picture's width or height as the host writes it (limits.MAX_IMAGE_PX)
  const MAX_ID_CHARS = 256;
  // The page's ids live beside the reader's own (#title, #article...): prefixed, they can never collide.
  const ID_PREFIX = "pith-";
  const MAX_DEPTH = 200;  // deeper nesting is flattened: a hostile page must not cost unbounded recursion in layout

  /** An absolute URL with an allowed scheme, or null. */
  function safeUrl(value, base, protocols) {
    let url;
    try {
      url = new URL(String(value).trim(), base || undefined);
    } catch {
      return null;
    }
    return protocols.has(url.protocol) ? url.href : null;
  }

  function copyAttributes(source, target, allowed, base) {
    for (const name of allowed) {
      if (!source.hasAttribute(name)) continue;
      const value = source.getAttribute(name);
      if (name === "href") {
        if (value.startsWith("#") && value.length > 1) {  // a footnote or its back link, inside the article
          // The host percent-encodes the fragment; the browser encodes it again and matches the id decoded.
          target.setAttribute("href", `#${ID_PREFIX}${safeDecode(value.slice(1)).slice(0, MAX_ID_CHARS)}`);
          continue;
        }
        const href = safeUrl(value, base, LINK_PROTOCOLS);
        if (href) {
          target.setAttribute("href", href);
          target.setAttribute("target", "_blank");
          target.setAttribute("rel", "noopener noreferrer");
        }
      } else if (name === "src") {
        const src = safeUrl(value, base, IMAGE_PROTOCOLS);
        if (src) target.setAttribute("src", src);
      } else if (name === "id") {
        if (value) target.setAttribute("id", `${ID_PREFIX}${value.slice(0, MAX_ID_CHARS)}`);
      } else if (name === "class") {
        if (LANGUAGE_CLASS.test(value) || SHAPE_CLASS.test(value)) target.setAttribute("class", value);
      } else if (name === "display") {
        if (DISPLAYS.has(value)) target.setAttribute("display", value);
      } else if (name === "width" || name === "height") {
        if (PIXELS.test(value) && Number(value) <= globalThis.PITH_LIMITS.MAX_IMAGE_PX) target.setAttribute(name, value);
      } else {
        target.setAttribute(name, value.slice(0, 2048));
      }
    }
    if (target.localName === "img") {
      if (!target.hasAttribute("src")) return false;  // an image with nowhere safe to load from is dropped
      target.setAttribute("loading", "lazy");
      target.setAttribute("referrerpolicy", "no-referrer");
      target.setAttribute("decoding", "async");
    }
    return true;
  }

  function safeDecode(text) {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  }

  /** `html` parsed into an inert document: its top-level nodes, for `sanitizeNodes`. */
  function parseArticle(html) {
    const parsed = new DOMParser().parseFromString(String(html || ""), "text/html");
    return parsed.body ? [...parsed.body.childNodes] : [];
  }

  const VOID_OUT = new Set(["br", "img", "hr"]);  // what the host's article HTML writes without a closing tag

  /** Where the host's article `html` can be cut between two top-level elements once about `chars` characters
   * of text are before the cut, so that the first part parses alone before the first paint and the rest after
   * it (DOMParser took 6 ms of a 125 KB article's first screen); the two parts' nodes are the whole's. The
   * host escapes text and attribute values (native_host/pipeline/article.py), so each `<` opens a tag. Markup
   * it cannot follow is not cut (`html.length`). */
  function firstScreenEnd(html, chars) {
    const tag = /<(\/?)([A-Za-z][A-Za-z0-9-]*)[^>]*>/g;
    let depth = 0;
    let text = 0;
    let last = 0;
    for (let m = tag.exec(html); m; m = tag.exec(html)) {
      text += m.index - last;
      last = tag.lastIndex;
      if (m[1]) depth--;
      else if (!VOID_OUT.has(m[2].toLowerCase())) depth++;
      if (depth < 0) return html.length;
      if (depth === 0 && text >= chars) {
        let end = last;
        while (html[end] === "\n") end++;  // the blank between two elements stays with the first part
        return end;
      }
    }
    return html.length;
  }

  /** Sanitised copy of `html` as a DocumentFragment of `doc`, URLs made absolute against `base`. */
  function sanitize(html, base, doc = document) {
    return sanitizeNodes(parseArticle(html), base, doc);
  }

  /** Sanitised copies of `nodes` (top-level nodes from `parseArticle`) as a DocumentFragment of `doc`. */
  function sanitizeNodes(nodes, base, doc = document) {
    const fragment = doc.createDocumentFragment();
    const stack = [];
    for (let i = nodes.length - 1; i >= 0; i--) stack.push([nodes[i], fragment, 0, false]);
    while (stack.length) {
      const [node, parent, depth, inMath] = stack.pop();
      if (node.nodeType === Node.TEXT_NODE) {
        parent.append(doc.createTextNode(node.data));
        continue;
      }
      if (node.nodeType !== Node.ELEMENT_NODE) continue;  // comments, processing instructions
      const tag = node.localName;
      let target = parent;
      let math = inMath;
      if (node.namespaceURI === MATHML_NS) {
        if (!Object.hasOwn(MATHML_TAGS, tag)) continue;  // annotation-xml and the like can carry foreign markup
        if (depth < MAX_DEPTH) {
          const el = doc.createElementNS(MATHML_NS, tag);
          copyAttributes(node, el, MATHML_TAGS[tag], base);
          parent.append(el);
          target = el;
        }
        math = true;
      } else if (node.namespaceURI !== HTML_NS || DROP.has(tag)) {
        continue;
      } else if (!inMath && Object.hasOwn(HTML_TAGS, tag) && depth < MAX_DEPTH) {
        const el = doc.createElement(tag);
        if (!copyAttributes(node, el, HTML_TAGS[tag], base)) continue;
        parent.append(el);
        target = el;
      }  // else: unknown, or HTML inside a formula: unwrapped to its text
      for (let c = node.lastChild; c; c = c.previousSibling) {
        stack.push([c, target, target === parent ? depth : depth + 1, math]);
      }
    }
    return fragment;
  }

  globalThis.PITH_SANITIZE = Object.freeze({ HTML_TAGS, MATHML_TAGS, ID_PREFIX, safeUrl, parseArticle, sanitize,
                                           sanitizeNodes, firstScreenEnd });
})();
})();

// ---- background/frames.js
const module4 = (() => {
// The background's side of Pith's frames in a page (content/frames.js): the one-time token each frame is made
// for, and the port it connects with. A frame proves it is the one the extension laid over the page by
// connecting with the token it was given as its name; the token works once, only from the extension's own page
// of that kind, only in the tab it was made for. Everything a frame shows (the article, the note) comes over
// that port, from here: never from the page.
const api = globalThis.browser ?? globalThis.chrome;
const PAGES = { reader: "reader/reader.html", note: "note/note.html" };
const PREFIX = "pith.frame:";
const sessions = new Map();  // token -> {kind, tabId, port, connected, onMessage, onGone}

function randomToken() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A session for a frame of `kind` in tab `tabId`: {token, connected (resolves with the port), send, close}.
 * `onMessage(message)` gets what the frame sends; `onGone()` runs once the frame's port closes. */
function expectFrame(kind, tabId, { onMessage = () => {}, onGone = () => {} } = {}) {
  const token = randomToken();
  let resolve;
  const session = { kind, tabId, port: null, onMessage, onGone, connected: new Promise((r) => { resolve = r; }) };
  session.accept = resolve;
  sessions.set(token, session);
  return {
    token,
    connected: session.connected,
    send(message) {
      if (session.port) session.port.postMessage(message);
      return Boolean(session.port);
    },
    end() {
      sessions.delete(token);
      if (session.port) session.port.disconnect();
      session.port = null;
    },
  };
}

/** The frame's name for a port: "pith.frame:<token>". */
function portName(token) {
  return `${PREFIX}${token}`;
}

api.runtime.onConnect.addListener((port) => {
  if (typeof port.name !== "string" || !port.name.startsWith(PREFIX)) return;
  const token = port.name.slice(PREFIX.length);
  const session = sessions.get(token);
  // Another extension context's token (each context that imports this module keeps its own): not ours to judge.
  if (!session) return;
  const sender = port.sender || {};
  const page = api.runtime.getURL(PAGES[session.kind]);
  const url = typeof sender.url === "string" ? sender.url.split(/[?#]/)[0] : "";
  if (session.port || url !== page || !sender.tab || sender.tab.id !== session.tabId) {
    port.disconnect();  // a second use of the token, or not the frame it was made for
    return;
  }
  session.port = port;
  port.onMessage.addListener((message) => {
    if (message && typeof message === "object") session.onMessage(message);
  });
  port.onDisconnect.addListener(() => {
    if (sessions.get(token) !== session) return;
    sessions.delete(token);
    session.port = null;
    session.onGone();
  });
  port.postMessage({ type: "hello" });  // taken: the frame may get ready
  session.accept(port);
});
return { expectFrame, portName };
})();

// ---- background/errors.js
const module5 = (() => {
// Every failure the user can meet, with the way out. The host's own error codes (docs/protocol.md) and the
// extension's (host_missing, host_timeout, ...) map here to a title, an explanation and a fix, so the popup,
// the in-page note and the `pith.run` reply all say the same thing.

const DOCTOR = "Run `pith doctor` in a terminal: it checks each link of the chain and prints the command that fixes it.";

const PROBLEMS = {
  host_missing: {
    title: "Pith's helper is not installed",
    text: "The browser cannot find Pith's native helper (org.pith.reader), which does the extraction on this computer.",
    fix: "Install it: run `pith install` in a terminal, then try again. `pith doctor` checks the setup.",
  },
  host_forbidden: {
    title: "Pith's helper does not accept this extension",
    text: "The helper is installed, but its registration does not list this extension.",
    fix: "Run `pith install` again to renew the registration, then `pith doctor`.",
  },
  host_crashed: {
    title: "Pith's helper stopped",
    text: "The native helper exited or sent something that is not a protocol message.",
    fix: DOCTOR + " Its log is host.log in ~/.local/state/pith/log/ (macOS: ~/Library/Logs/pith/).",
  },
  host_timeout: {
    title: "Pith's helper is not answering",
    text: "The native helper took too long; it has been restarted for the next try.",
    fix: "Try again; if it keeps happening, " + DOCTOR,
  },
  host_protocol: {
    title: "Pith's helper answered out of turn",
    text: "A reply from the native helper did not follow the protocol.",
    fix: "Install matching releases of the extension and of pith (`pith --version`), then " + DOCTOR,
  },
  model_unavailable: {
    title: "Pith's model cannot be loaded",
    text: "The helper runs, but its extraction model is missing or broken.",
    fix: DOCTOR,
  },
  bad_snapshot: {
    title: "This page could not be sent to Pith",
    text: "The helper refused the page the extension read from it.",
    fix: "Reload the page and try again; if it persists, please report it (a bug in the extension).",
  },
  too_large: {
    title: "This page is too large for Pith",
    text: "The page is over the 64 MiB a browser may send to a native helper.",
    fix: "Save the page (Ctrl+S) and run `pith extract` on the file.",
  },
  unsupported_version: {
    title: "The extension and pith do not match",
    text: "The helper speaks a different protocol version.",
    fix: "Install matching releases of the extension and of pith, then run `pith install`.",
  },
  unknown_type: {
    title: "The extension and pith do not match",
    text: "The helper does not know this request; pith is older than the extension.",
    fix: "Update pith, then run `pith install`.",
  },
  bad_request: {
    title: "Pith's helper refused the request",
    text: "The helper could not read the request (a bug in the extension).",
    fix: "Please report it; " + DOCTOR,
  },
  bad_input: {
    title: "Pith's helper refused the input",
    text: "The helper could not use what it was given.",
    fix: "Please report it; " + DOCTOR,
  },
  timeout: {
    title: "Pith took too long on this page",
    text: "The page ran past the per-page time limit of a corpus job (the helper itself sets none).",
    fix: "Try again; if it keeps happening, please report the page.",
  },
  missing_extra: {
    title: "Pith's helper lacks an optional part",
    text: "The helper was asked for something that needs Pith's corpus extra (WARC, Parquet, Ray).",
    fix: "Run `pip install 'pith[corpus]'`, then try again.",
  },
  not_html: {
    title: "This is not a web page",
    text: "The file given as HTML is a binary file (an image, an archive, a program); the command line says so.",
    fix: "Give `pith extract` HTML files; the helper itself never reads files.",
  },
  cannot_write: {
    title: "Pith could not write its output",
    text: "A command-line job could not write where --out points (no permission, or the disk is full).",
    fix: "Free some space or choose another --out, then run the same command again.",
  },
  internal: {
    title: "Pith's helper failed on this page",
    text: "The helper hit a bug and went on serving.",
    fix: "Please report it with the helper's log (`pith doctor` shows where it is).",
  },
  page_unreadable: {
    title: "Pith cannot read this page",
    text: "The browser does not let extensions into this kind of page (browser settings, the web store, built-in viewers).",
    fix: "Open the article in a normal web page tab and try again.",
  },
  no_tab: {
    title: "No page to work on",
    text: "The tab is gone or was never given.",
    fix: "Open the page again and retry from its tab.",
  },
  no_content: {
    title: "No main content found",
    text: "Pith found no article text on this page.",
    fix: "If the page is still loading, wait and try again (each try reads the page afresh).",
  },
  page_changed: {
    title: "The page changed while Pith was reading it",
    text: "The page replaced its content before the result came back.",
    fix: "Try again.",
  },
  reader_failed: {
    title: "The reader view could not be opened",
    text: "The browser would not let Pith lay the reader view over this page.",
    fix: "Use Save to get the article as a file instead, or reload the page and try again.",
  },
  save_failed: {
    title: "The article could not be saved",
    text: "The browser refused the download.",
    fix: "Check the browser's download settings and try again.",
  },
  bad_action: {
    title: "Unknown action",
    text: "pith.run takes action \"reader\", \"highlight\" or \"save\".",
    fix: "Send one of those actions.",
  },
};

/** A failure with a stable code; `detail` is the technical reason, kept for the log and the message. */
class PithFailure extends Error {
  constructor(code, detail = "") {
    const problem = PROBLEMS[code] || PROBLEMS.internal;
    super(`${problem.title}. ${problem.text}${detail ? ` (${detail})` : ""} ${problem.fix}`);
    this.code = code;
    this.detail = detail;
  }

  /** The `error` object of a `{ok: false}` reply: code, message (with the fix), and its parts for display. */
  toJSON() {
    const problem = PROBLEMS[this.code] || PROBLEMS.internal;
    return { code: this.code, message: this.message, title: problem.title, text: problem.text,
             fix: problem.fix, detail: this.detail };
  }
}

/** Any thrown value as a PithFailure (a bug in the extension becomes `internal`, never a silent failure). */
function asFailure(error) {
  if (error instanceof PithFailure) return error;
  return new PithFailure("internal", String((error && error.message) || error));
}

/** Why a native port closed, from the browser's own message (Chromium's wording, then Firefox's). */
function disconnectFailure(reason) {
  const text = String(reason || "");
  if (/not found|no such native application|manifest/i.test(text)) return new PithFailure("host_missing", text);
  if (/forbidden|not allowed|permission/i.test(text)) return new PithFailure("host_forbidden", text);
  if (/failed to start/i.test(text)) return new PithFailure("host_missing", text);
  return new PithFailure("host_crashed", text || "the connection closed");
}
return { PithFailure, asFailure, disconnectFailure, PROBLEMS };
})();

// ---- background/save.js
const module6 = (() => {
const { PithFailure } = module5;
// Saving the article: the document (article_document.js) handed to the browser's downloads, in the folder and
// with the template the options page (options/options.js) stored.

const L = globalThis.PITH_LIMITS;
const api = globalThis.browser ?? globalThis.chrome;
const { safeFilename, articleDocument, saveFolder } = globalThis.PITH_DOCUMENT;
const T = globalThis.PITH_TEMPLATE;
const OFFSCREEN = "offscreen/blob.html";

function base64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** A blob: URL for `doc`: made here where the page can (Firefox's event page), else in an offscreen page. */
async function blobUrl(doc) {
  const binary = doc.content instanceof Uint8Array;  // a recorded snapshot (record.js), not text
  if (typeof URL.createObjectURL === "function") {
    const url = URL.createObjectURL(new Blob([doc.content], { type: binary ? doc.mime : `${doc.mime};charset=utf-8` }));
    return { url, revoke: () => URL.revokeObjectURL(url) };
  }
  const contexts = await api.runtime.getContexts({ contextTypes: ["OFFSCREEN_DOCUMENT"] });
  if (!contexts.length) {
    await api.offscreen.createDocument({ url: OFFSCREEN, reasons: ["BLOBS"],
                                         justification: "Make a download URL for a saved article." });
  }
  // Messages carry JSON, so bytes travel as base64.
  const content = binary ? base64(doc.content) : doc.content;
  const { url } = await api.runtime.sendMessage({ type: "pith.blob.create", content, binary, mime: doc.mime });
  return { url, revoke: () => api.runtime.sendMessage({ type: "pith.blob.revoke", url }).catch(() => {}) };
}

/** What the options page stored for saving: {format, template (the parsed object; undefined for the default or
 * a stored text that no longer reads), folder ("" for Downloads itself), saveAs, images, imagesAs ("folder" or
 * "zip": the images beside the Markdown, or both in one .zip)}. */
async function saveSettings() {
  const stored = await api.storage.local.get(["saveFormat", "saveTemplate", "saveFolder", "saveAs", "saveImages",
                                              "saveImagesAs"]);
  const parsed = typeof stored.saveTemplate === "string" ? T.parseTemplate(stored.saveTemplate) : {};
  return { format: stored.saveFormat === "text" ? "text" : "markdown", template: parsed.template,
           folder: saveFolder(stored.saveFolder).folder || "", saveAs: stored.saveAs === true,
           images: stored.saveImages === true, imagesAs: stored.saveImagesAs === "zip" ? "zip" : "folder" };
}

/** Hand the document to the browser's downloads, in the chosen folder of Downloads (or where the user says,
 * with Save As); resolves with {downloadId, filename: the path under Downloads it was given}. `options` may
 * say another conflictAction, or saveAs, and may carry the `settings` read once for a save of many files, so
 * that all of them land in one folder. */
async function download(doc, options = {}) {
  const settings = options.settings || (await saveSettings());
  const { folder } = settings;
  const saveAs = options.saveAs ?? settings.saveAs;
  const conflictAction = options.conflictAction || "uniquify";
  const filename = folder ? `${folder}/${doc.filename}` : doc.filename;
  let made;
  try {
    made = await blobUrl(doc);
  } catch (error) {
    throw new PithFailure("save_failed", error && error.message);
  }
  try {
    const downloadId = await api.downloads.download({ url: made.url, filename, conflictAction, saveAs });
    return { downloadId, filename };
  } catch (error) {
    throw new PithFailure("save_failed", error && error.message);
  } finally {
    setTimeout(made.revoke, L.BLOB_URL_LIFETIME_MS);
  }
}
return { saveSettings, download, safeFilename, articleDocument, saveFolder };
})();

// ---- reader/element.js
const module7 = (() => {
// The reader's one way to make its elements (reader.js, narrate.js): no markup strings, so nothing the page
// wrote is ever parsed as HTML here.

/** An element of the view: `attrs` as attributes (true: present and empty; false or null: left out). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === true) el.setAttribute(name, "");
    else if (value !== false && value != null) el.setAttribute(name, String(value));
  }
  el.append(...children);
  return el;
}
return { h };
})();

// ---- reader/narrate.js
const module8 = (() => {
const { h } = module7;
// Read aloud, in the reader view: the article spoken paragraph by paragraph by the browser's own speech
// synthesis (the Web Speech API; nothing leaves the machine that the browser's voices do not send), with play
// and pause, the previous and next paragraph, the speed and the voice. The paragraph being read is marked and
// kept in view (scrolled smoothly, or at once where the user asks for reduced motion).
//
// The controls sit in a panel of their own under a toolbar button. Where the browser has no speech synthesis,
// or no voice to speak with, the panel shows a note saying so and how to get one instead of the controls; voices
// that arrive later (Chromium lists them asynchronously, `voiceschanged`) bring the controls back.
//
// The speed and the voice are kept in storage.local (`narrateRate`, `narrateVoice`, the voice's URI), written
// only by this panel's controls.

const api = globalThis.browser ?? globalThis.chrome;

const RATES = [0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5];
const DEFAULT_RATE = 1;
// What is read, in document order: the innermost of these (a list item's paragraphs, not the item twice).
const READ = "h1, h2, h3, h4, h5, h6, p, li, dt, dd, blockquote, figcaption, pre, caption";
const NO_VOICE = "Read aloud needs a voice, and this browser has none. Install one for your system"
  + " (on Linux: speech-dispatcher with espeak-ng), then open the reader again.";
const NO_SPEECH = "This browser cannot read aloud (it has no speech synthesis).";

function rateText(rate) {
  return `${rate}\u00d7`;
}

/** The blocks of `root` to read, in order: the header's title, then the article's innermost text blocks. */
function readableBlocks(root) {
  const title = root.getElementById("title");
  const blocks = [...root.querySelectorAll(`#article :is(${READ})`)]
    .filter((el) => !el.querySelector(READ) && el.textContent.trim());
  return title && title.textContent.trim() ? [title, ...blocks] : blocks;
}

/** The toolbar button and the panel; `attach` wires them to the view. */
function narrateControls() {
  const button = h("button", { type: "button", id: "narrate-button", title: "Read the article aloud",
                               "aria-expanded": "false", "aria-controls": "narrate" }, "Read aloud");
  const rates = h("select", { id: "narrate-rate", "aria-label": "Speed", title: "Speed" },
    ...RATES.map((rate) => h("option", { value: rate }, rateText(rate))));
  const panel = h("div", { id: "narrate", class: "narrate", role: "group", "aria-label": "Read aloud", dir: "ltr",
                           lang: "en", hidden: true },
    h("div", { class: "row", id: "narrate-controls" },
      h("button", { type: "button", id: "narrate-back", title: "Previous paragraph", "aria-label": "Previous paragraph" },
        "\u23ee"),
      h("button", { type: "button", id: "narrate-play", title: "Play", "aria-label": "Play" }, "\u25b6"),
      h("button", { type: "button", id: "narrate-forward", title: "Next paragraph", "aria-label": "Next paragraph" },
        "\u23ed"),
      rates),
    h("div", { class: "row", id: "narrate-voices" },
      h("label", { for: "narrate-voice" }, "Voice"), h("select", { id: "narrate-voice" })),
    h("p", { class: "narrate-note", id: "narrate-note", role: "status", hidden: true }));
  return { button, panel };
}

/** Wire the controls that `narrateControls` made, now in `root` (the reader's document). `closeOthers()`
 * closes the reader's other panel when this one opens. Returns {toggle(open), open()}. */
function attachNarrate(root, { closeOthers = () => {}, lang = () => "" } = {}) {
  const $ = (id) => root.getElementById(id);
  // The browser's speech, looked up at each use (never kept): what the window has when the user asks.
  const synth = () => globalThis.speechSynthesis;
  const heard = new WeakSet();  // the speech objects whose voiceschanged this panel follows
  const state = { blocks: [], index: -1, playing: false, paused: false, utterance: null, offset: 0, spoken: 0,
                  rate: DEFAULT_RATE, voiceUri: "" };

  function voices() {
    try {
      const speech = synth();
      return speech ? Array.from(speech.getVoices()) : [];
    } catch {
      return [];
    }
  }

  /** The voices for the article's language first (all of them where none matches it). */
  function fillVoices() {
    const all = voices();
    const want = (lang() || "").toLowerCase().split("-")[0];
    const matching = want ? all.filter((v) => String(v.lang || "").toLowerCase().split(/[-_]/)[0] === want) : [];
    const list = matching.length ? matching : all;
    const select = $("narrate-voice");
    select.replaceChildren(h("option", { value: "" }, "Default"),
      ...list.map((v) => h("option", { value: v.voiceURI }, `${v.name}${v.lang ? ` (${v.lang})` : ""}`)));
    select.value = list.some((v) => v.voiceURI === state.voiceUri) ? state.voiceUri : "";
  }

  /** The controls where there is a voice to read with; the note saying why not where there is none. */
  function availability() {
    const speech = synth();
    const can = Boolean(speech && globalThis.SpeechSynthesisUtterance);
    if (can && !heard.has(speech) && typeof speech.addEventListener === "function") {  // voices that come later
      heard.add(speech);
      speech.addEventListener("voiceschanged", () => { if (!$("narrate").hidden) availability(); });
    }
    const any = can && voices().length > 0;
    $("narrate-controls").hidden = !any;
    $("narrate-voices").hidden = !any;
    const note = $("narrate-note");
    note.textContent = any ? "" : can ? NO_VOICE : NO_SPEECH;
    note.hidden = any;
    if (any) fillVoices();
    else if (state.playing) stop();
  }

  function mark(el) {
    for (const old of root.querySelectorAll(".narrating")) {
      old.classList.remove("narrating");
      old.removeAttribute("aria-current");
    }
    if (!el) return;
    el.classList.add("narrating");
    el.setAttribute("aria-current", "true");
    const view = root.querySelector(".view");
    const box = el.getBoundingClientRect(), sight = view.getBoundingClientRect();
    const toolbar = root.querySelector(".toolbar").getBoundingClientRect().height;
    if (box.top < sight.top + toolbar || box.bottom > sight.bottom) {
      const reduce = matchMedia("(prefers-reduced-motion: reduce)").matches;
      el.scrollIntoView({ block: "center", behavior: reduce ? "instant" : "smooth" });
    }
  }

  function showPlaying() {
    const play = $("narrate-play");
    const label = state.playing && !state.paused ? "Pause" : "Play";
    play.textContent = label === "Pause" ? "\u23f8" : "\u25b6";
    play.title = label;
    play.setAttribute("aria-label", label);
  }

  /** Speak block `index` from character `offset` (a restart after a change of speed or voice). */
  function speak(index, offset = 0) {
    if (index < 0 || index >= state.blocks.length) {
      stop();
      return;
    }
    state.index = index;
    const el = state.blocks[index];
    const text = el.textContent.replace(/\s+/g, " ").trim().slice(offset);
    const utterance = new globalThis.SpeechSynthesisUtterance(text);
    utterance.rate = state.rate;
    const voice = voices().find((v) => v.voiceURI === state.voiceUri);
    if (voice) utterance.voice = voice;
    else if (lang()) utterance.lang = lang();
    state.utterance = utterance;
    state.offset = offset;
    state.spoken = offset;
    utterance.addEventListener("boundary", (event) => {
      if (state.utterance === utterance && Number.isFinite(event.charIndex)) state.spoken = offset + event.charIndex;
    });
    utterance.addEventListener("end", () => {
      if (state.utterance === utterance && state.playing) speak(index + 1);
    });
    utterance.addEventListener("error", (event) => {
      if (state.utterance !== utterance || ["interrupted", "canceled"].includes(event.error)) return;
      stop();
      const note = $("narrate-note");
      note.textContent = `Could not read aloud: ${event.error || "the voice failed"}. Try another voice.`;
      note.hidden = false;
    });
    mark(el);
    synth().speak(utterance);
  }

  /** Cancel what is being said, leaving `state.utterance` unset so its events change nothing. */
  function silence() {
    state.utterance = null;
    const speech = synth();
    if (speech) speech.cancel();
  }

  function play() {
    if (state.playing && !state.paused) {  // pause
      state.paused = true;
      synth().pause();
    } else if (state.playing) {  // resume
      state.paused = false;
      synth().resume();
    } else {
      state.blocks = readableBlocks(root);
      state.playing = true;
      state.paused = false;
      silence();
      speak(state.index >= 0 && state.index < state.blocks.length ? state.index : 0);
    }
    showPlaying();
  }

  function stop() {
    state.playing = false;
    state.paused = false;
    silence();
    mark(null);
    state.index = -1;
    showPlaying();
  }

  /** Go to the paragraph `step` away (reading it, where reading). */
  function skip(step) {
    if (!state.playing) return;
    const next = Math.max(0, state.index + step);
    silence();
    state.paused = false;
    speak(next);
    showPlaying();
  }

  /** A new speed or voice takes effect at once: the paragraph goes on from the last word reached. */
  function restart() {
    if (!state.playing) return;
    const { index, spoken } = state;
    silence();
    state.paused = false;
    speak(index, spoken);
    showPlaying();
  }

  function toggle(open = $("narrate").hidden) {
    if (open) closeOthers();
    $("narrate").hidden = !open;
    $("narrate-button").setAttribute("aria-expanded", String(open));
    if (open) availability();
  }

  $("narrate-button").addEventListener("click", () => toggle());
  $("narrate-play").addEventListener("click", play);
  $("narrate-back").addEventListener("click", () => skip(-1));
  $("narrate-forward").addEventListener("click", () => skip(1));
  $("narrate-rate").addEventListener("change", () => {
    const rate = Number($("narrate-rate").value);
    state.rate = RATES.includes(rate) ? rate : DEFAULT_RATE;
    api.storage.local.set({ narrateRate: state.rate }).catch(() => {});
    restart();
  });
  $("narrate-voice").addEventListener("change", () => {
    state.voiceUri = $("narrate-voice").value;
    api.storage.local.set({ narrateVoice: state.voiceUri }).catch(() => {});
    restart();
  });
  // Leaving the reader stops the voice (a voice may outlive its frame otherwise).
  addEventListener("pagehide", () => { if (state.playing) stop(); });
  api.storage.local.get(["narrateRate", "narrateVoice"]).then((stored) => {
    const rate = Number(stored.narrateRate);
    state.rate = RATES.includes(rate) ? rate : DEFAULT_RATE;
    state.voiceUri = typeof stored.narrateVoice === "string" ? stored.narrateVoice : "";
    $("narrate-rate").value = String(state.rate);
  }, () => {});
  $("narrate-rate").value = String(DEFAULT_RATE);
  showPlaying();
  // Esc closes this panel first (the focus back on its button), before the reader's own Esc leaves the view:
  // registered before the reader's listener, it marks the key as used.
  document.addEventListener("keydown", (event) => {
    if (!event.isTrusted || event.key !== "Escape" || $("narrate").hidden) return;
    event.preventDefault();
    toggle(false);
    $("narrate-button").focus({ preventScroll: true });
  }, true);
  return { toggle, stop };
}
return { readableBlocks, narrateControls, attachNarrate };
})();

// ---- reader/reader.js
(() => {
const { portName } = module4;
const { saveSettings } = module6;
const { attachNarrate, narrateControls } = module8;
const { h } = module7;
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
})();
