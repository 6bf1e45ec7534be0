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
