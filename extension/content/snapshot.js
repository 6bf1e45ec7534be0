// Live DOM -> snapshot v2 (docs/snapshot.md), with the live-render fields only a browser can fill.
//
// It follows native_host/pipeline/snapshot.py rule for rule (same skipped subtrees, same leaf-only elements, same
// attribute fields and hidden-by-markup test), so a static page gives the host the same blocks whichever way
// it arrives; tests/test_extension_e2e.py compares the two node by node. Where the two paths must differ
// (docs/snapshot.md says so): <noscript> is skipped (a page running scripts never shows it), and the documents
// of same-origin iframes and open shadow roots are walked.
//
// Speed: a pre-order pass over the DOM that reads markup only, then a pass over the elements whose live
// fields the model can use: the *owners* of text (the nearest non-inline element above a non-blank text node,
// as native_host/pipeline/blocks.py assigns text to blocks) get their style and box read, and their ancestors only
// the style a descendant's visibility depends on. Inline elements, empty containers and the rest are never
// read: style and box reads were nearly all of the pass's time. Nothing is written to the page during
// either pass, so the browser lays the page out once, not per element. The first pass makes no object per node
// beyond its entry: a TreeWalker moves through each tree (walkTree), and attributes are read by name
// (getAttributeNames, getAttribute) rather than through `attributes`, which makes an Attr object for each.
// Runs in the extension's isolated world, where the page's scripts cannot see or change the map it keeps; the
// reader's walk on a page read before runs in the page's own world, without the map (background/page.js).
(() => {
  "use strict";
  if (globalThis.__pithSnapshot) return;  // injected again for every action; define once

  const L = globalThis.PITH_LIMITS;
  // The tag sets and metadata keys are snapshot.py's and blocks.py's (limits.js, written by native_host/contracts.py).
  const C = globalThis.PITH_CONTRACTS;
  const SKIP_SUBTREE = new Set(C.SKIP_SUBTREE);
  const LEAF_ONLY = new Set(C.LEAF_ONLY);
  const SHADOW_HOSTS = new Set(["article", "aside", "blockquote", "body", "div", "footer", "h1", "h2", "h3", "h4",
    "h5", "h6", "header", "main", "nav", "p", "section", "span"]);
  // The attributes markupFields reads by name (besides L.DATE_ATTRIBUTES); any other is never read.
  const KEPT_ATTRIBUTES = new Set(["class", "id", "role", "aria-label", "itemprop", "itemscope", "itemtype", "rel",
    "aria-hidden", "hidden", "style", "href", "alt", "alttext", "type", "width", "height"]);
  const [TEX_SCRIPT_TYPE, TEX_DISPLAY_MODE] = C.TEX_SCRIPT;
  const HTML_SPACE = /^[ \t\n\r\f]+|[ \t\n\r\f]+$/g;
  // Inline formatting elements: their text belongs to the enclosing block (blocks.py INLINE).
  const INLINE = new Set(C.INLINE);
  // The same test as snapshot.py's _HIDDEN_STYLE.
  const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)/i;
  const BLANK = /^\s*$/;
  const META_KEYS = C.META_KEYS;
  const LINK_RELS = new Set(C.LINK_RELS);
  const DIRS = new Set(C.DIRS);
  const TEXT_NODE = 3;
  const SHOWN = 0x1 | 0x4;  // NodeFilter.SHOW_ELEMENT | SHOW_TEXT: the walk never looks at comments

  const cut = (value) => value.trim().slice(0, L.MAX_ATTR_CHARS);
  const IMAGE_SIDE = /^[\t\n\f\r ]*([0-9]+)(?:\.[0-9]*)?(%?)/;
  // An <img>'s width or height attribute in CSS pixels, as snapshot.py's image_side reads it; 0 for none.
  function imageSide(value) {
    const found = value === null ? null : IMAGE_SIDE.exec(value);
    if (!found || found[2] || found[1].length > 6) return 0;
    const side = Number(found[1]);
    return side >= 1 && side <= L.MAX_IMAGE_PX ? side : 0;
  }
  // Where lazy-loading scripts keep an image's real address (snapshot.py's LAZY_SRC, in the same order).
  const LAZY_SRC = ["data-src", "data-lazy-src", "data-original"];
  const SRCSET_SPLIT = /,[ \t\n\r\f]+/;
  const DESCRIPTOR = /^([0-9]+(?:\.[0-9]+)?)[wx]$/;

  // The largest image a srcset offers: snapshot.py's best_srcset_candidate, rule for rule.
  function bestSrcsetCandidate(srcset) {
    let best = "";
    let size = -1;
    for (const candidate of String(srcset || "").replace(/^[ \t\n\r\f]+|[ \t\n\r\f]+$/g, "").split(SRCSET_SPLIT)) {
      const words = candidate.split(/[ \t\n\r\f]+/).filter(Boolean);
      if (!words.length) continue;
      const match = words.length > 1 ? DESCRIPTOR.exec(words[1]) : null;
      const value = match ? parseFloat(match[1]) : 1;
      if (value > size) {
        best = words[0];
        size = value;
      }
    }
    return best;
  }

  // An <img>'s address as a reader would load it: snapshot.py's image_source. Returns [value, fromSrc].
  function imageSource(el) {
    for (const name of LAZY_SRC) {
      const value = cut(el.getAttribute(name) || "");
      if (value) return [value, false];
    }
    const src = cut(el.getAttribute("src") || "");
    if (src && src.slice(0, 5).toLowerCase() !== "data:") return [src, true];
    const srcsets = [el.getAttribute("data-srcset"), el.getAttribute("srcset")];
    const picture = el.parentElement;
    if (picture && picture.localName === "picture") {
      for (const child of picture.children) {
        if (child.localName !== "source") continue;
        for (const name of ["data-srcset", "srcset"]) {
          const value = child.getAttribute(name);
          if (value) srcsets.push(value);
        }
      }
    }
    for (const srcset of srcsets) {
      const best = cut(bestSrcsetCandidate(srcset));
      if (best) return [best, false];
    }
    return [src, true];
  }

  function absolute(value, base) {
    if (!base) return value;
    try {
      return new URL(value, base).href;
    } catch {
      return value;  // not a URL the browser can parse: sent as written, like urljoin would
    }
  }

  // Markup fields, from the attributes (never from scripts' view of the element), as snapshot.py reads them.
  function markupFields(el, names, tag, entry) {
    let hidden = false;
    let href = null;
    let alt = null;
    let alttext = null;
    let type = null;
    let width = null;
    let height = null;
    let rel = null;
    let datetime = null;
    let dateRank = L.DATE_ATTRIBUTES.length;
    let itemtype = null;
    let itemscope = false;
    // By name, then each value the walk keeps: `attributes[i]` would make an Attr object per attribute.
    for (const name of names) {
      // Read only where the walk keeps it: a page's elements carry many others (data-*, event handlers, aria-*),
      // and in Firefox each read crosses the content script's wrapper.
      const kept = KEPT_ATTRIBUTES.has(name);
      const rank = kept ? -1 : L.DATE_ATTRIBUTES.indexOf(name);
      if (!kept && rank < 0) continue;
      const value = el.getAttribute(name);
      switch (name) {
        case "class": {
          const trimmed = value.trim();
          if (trimmed) {
            entry.classes = trimmed.split(/\s+/).slice(0, L.MAX_CLASSES).map((c) => c.slice(0, L.MAX_ATTR_CHARS));
          }
          break;
        }
        case "id":
          if (value.trim()) entry.html_id = cut(value);
          break;
        case "role":
          if (value.trim()) entry.role = cut(value);
          break;
        case "aria-label":
          if (value.trim()) entry.aria_label = cut(value);
          break;
        case "itemprop":
          if (value.trim()) entry.itemprop = cut(value);
          break;
        case "itemscope":
          itemscope = true;
          break;
        case "itemtype":
          itemtype = value;
          break;
        case "rel":
          rel = value;
          break;
        case "aria-hidden":
          if (value.trim().toLowerCase() === "true") hidden = true;
          break;
        case "hidden":
          hidden = true;
          break;
        case "style":
          if (HIDDEN_STYLE.test(value)) hidden = true;
          break;
        case "href":
          href = value;
          break;
        case "alt":
          alt = value;
          break;
        case "alttext":
          alttext = value;
          break;
        case "type":
          type = value;
          break;
        case "width":
          width = value;
          break;
        case "height":
          height = value;
          break;
        default: {
          // A date attribute (L.DATE_ATTRIBUTES): the first of the list the element has, as snapshot.py reads it.
          if (rank < dateRank && value.trim()) {
            dateRank = rank;
            datetime = value;
          }
        }
      }
    }
    // An HTML <a> or <img> resolves its own URL (against <base> too), faster than parsing it again here. For a
    // URL it cannot parse it gives the attribute as written, which is then trimmed as snapshot.py keeps it.
    if (tag === "a" && href !== null) {
      const resolved = href.trim() && typeof el.href === "string" ? el.href : absolute(cut(href), el.baseURI);
      entry.href = (resolved === href ? cut(href) : resolved).slice(0, L.MAX_ATTR_CHARS);
      if (rel !== null && rel.trim()) entry.rel = cut(rel);
    } else if (tag === "img") {
      const [source, fromSrc] = imageSource(el);
      if (source) {
        const resolved = fromSrc && typeof el.src === "string" ? el.src : absolute(source, el.baseURI);
        entry.src = (resolved === el.getAttribute("src") ? source : resolved).slice(0, L.MAX_ATTR_CHARS);
      }
      if (alt !== null && alt.trim()) entry.alt = cut(alt);
      const w = imageSide(width);
      if (w) entry.width = w;
      const h = imageSide(height);
      if (h) entry.height = h;
    } else if (tag === "math") {
      if (alttext !== null && alttext.trim()) entry.alt = cut(alttext); // a formula's TeX, as snapshot.py keeps it
    }
    if (itemscope && itemtype !== null && itemtype.trim()) entry.itemtype = cut(itemtype);
    if (datetime !== null) entry.datetime = cut(datetime);
    if (tag === "input" && type !== null && type.toLowerCase() === "hidden") hidden = true;
    if (hidden) entry.hidden = true;
  }

  // Whether an element lets its descendants be seen (not display:none, not opacity:0), from its style.
  function lets(style) {
    return style.display !== "none" && style.opacity !== "0";
  }

  // The live-render fields of a text owner whose parent is `parentShown`; returns whether its descendants
  // can be seen. Inside a hidden subtree nothing renders: the style and box are not read at all.
  function renderFields(el, view, frame, parentShown, entry) {
    if (!parentShown) {
      entry.visible = false;
      return false;
    }
    const style = view.getComputedStyle(el);
    const display = style.display;
    if (display === "none") {
      entry.visible = false;
      entry.box = [0, 0, 0, 0];
      entry.display = display;
      return false;
    }
    const rect = el.getBoundingClientRect();
    const shown = style.opacity !== "0";
    entry.visible = shown && style.visibility !== "hidden" && rect.width > 0 && rect.height > 0;
    entry.box = [Math.round(rect.left + frame.x), Math.round(rect.top + frame.y),
                 Math.round(rect.width), Math.round(rect.height)];
    const size = parseFloat(style.fontSize);
    if (size >= 0) entry.font_size = size;
    const weight = parseFloat(style.fontWeight);
    if (weight >= 0) entry.font_weight = weight;
    if (display) entry.display = display.slice(0, L.MAX_TAG_CHARS);
    return shown;
  }

  // The second pass. `walk.role[id]`: 2 for a text owner, 1 for an ancestor of one, 0 otherwise. Ids are in
  // document order, so a parent's `shown` is known before its children's.
  function addRenderFields(walk) {
    const { nodes, domNodes, role, frames, views } = walk;
    const shown = new Uint8Array(nodes.length);
    for (let id = 0; id < nodes.length; id++) {
      if (!role[id]) continue;
      const entry = nodes[id];
      const parentShown = entry.parent < 0 || shown[entry.parent] === 1;
      if (role[id] === 2) {
        shown[id] = renderFields(domNodes[id], views[id], frames[id], parentShown, entry) ? 1 : 0;
      } else {
        shown[id] = parentShown && lets(views[id].getComputedStyle(domNodes[id])) ? 1 : 0;
      }
    }
  }

  // The page as it will be once its animations and transitions have run: each running one that ends is put
  // at its end, and each endless one at the start of its first iteration, for the duration of the reads;
  // returns what puts every one back where it was. A section that fades, slides, collapses or grows in is
  // then read the same whenever the snapshot is taken (its box, visibility, opacity, font size), instead of
  // at whatever frame the click found it. Nothing is painted meanwhile (the reads and the restore are one
  // task), and no event fires: each animation is back at its time before the browser next looks.
  function settleAnimations(doc) {
    const moved = [];
    let animations = [];
    try {
      animations = doc.getAnimations ? doc.getAnimations() : [];
    } catch { /* no animations API: read as it is */ }
    for (const animation of animations) {
      try {
        const time = animation.currentTime;
        // A scroll-driven animation (its time a percentage, not a number) follows the scroll position: left.
        if (animation.playState !== "running" || typeof time !== "number" || !animation.effect) continue;
        const timing = animation.effect.getComputedTiming();
        const forwards = animation.playbackRate >= 0;
        let end = forwards ? timing.endTime : 0;
        if (!Number.isFinite(end)) end = Math.max(0, Number(animation.effect.getTiming().delay) || 0);
        if (end === time) continue;
        moved.push([animation, time]);
        animation.currentTime = end;
      } catch { /* an animation the browser will not seek: read as it is */ }
    }
    return () => {
      for (let i = moved.length - 1; i >= 0; i--) {
        try {
          moved[i][0].currentTime = moved[i][1];
        } catch { /* gone meanwhile */ }
      }
    };
  }

  // Outside <noscript>: snapshot.py leaves out what it parses there, which a page running scripts never has.
  function outsideNoscript(el) {
    return !el.closest("noscript");
  }

  // The page's metadata, as snapshot.py's page_metadata reads it: <meta> with a name, property or itemprop,
  // <link rel=canonical|author>, JSON-LD script text (one over the limit is left out: cut, it would not parse).
  function pageMetadata(doc) {
    const meta = [];
    for (const el of doc.querySelectorAll("meta[content]")) {
      if (meta.length >= L.MAX_META) break;
      const content = cut(el.getAttribute("content"));
      const entry = {};
      for (const key of META_KEYS) {
        const value = el.getAttribute(key);
        if (value !== null && value.trim()) entry[key] = cut(value);
      }
      if (content && Object.keys(entry).length && outsideNoscript(el)) {
        entry.content = content;
        meta.push(entry);
      }
    }
    const links = [];
    for (const el of doc.querySelectorAll("link[rel][href]")) {
      if (links.length >= L.MAX_LINKS) break;
      const rel = cut(el.getAttribute("rel"));
      const href = cut(el.getAttribute("href"));
      if (href && rel.toLowerCase().split(/\s+/).some((r) => LINK_RELS.has(r)) && outsideNoscript(el)) {
        const resolved = typeof el.href === "string" && el.href ? el.href : absolute(href, el.baseURI);
        const written = resolved === el.getAttribute("href");  // a URL the browser cannot parse: trimmed
        links.push({ rel, href: (written ? href : resolved).slice(0, L.MAX_ATTR_CHARS) });
      }
    }
    const jsonLd = [];
    for (const el of doc.querySelectorAll("script[type]")) {
      if (jsonLd.length >= L.MAX_JSON_LD) break;
      const type = el.getAttribute("type").split(";")[0].trim().toLowerCase();
      if (type !== "application/ld+json" || !outsideNoscript(el)) continue;
      const text = el.textContent || "";
      if (text && text.length <= L.MAX_JSON_LD_CHARS) jsonLd.push(text);
    }
    return { meta, links, json_ld: jsonLd };
  }

  // A same-origin iframe's document, or null (cross-origin frames throw or give null).
  function frameDocument(el) {
    try {
      const doc = el.contentDocument;
      return doc && doc.documentElement ? doc : null;
    } catch {
      return null;
    }
  }

  // The first pass: the document's nodes in pre-order, with their markup fields. Beside them, in arrays
  // indexed by node id, what the second pass and the highlighter need of each: the nodes themselves are what
  // is sent to the host, so they hold nothing else.
  function walkDocument(doc) {
    const walk = {
      nodes: [],      // the snapshot's nodes
      domNodes: [],   // the DOM node of each (the highlighter maps ids back to them)
      parents: [],
      // Each node's nearest non-inline ancestor-or-self (-1: none), from its parent's as nodes come in
      // document order: walking up through inline elements per text cost texts x depth on deep inline nesting.
      owners: [],
      role: [],       // 2: owns text, 1: an ancestor of an owner, 0: neither (addRenderFields)
      frames: [],     // the offset of the frame the node is in, and its window, for the second pass
      views: [],
      truncated: false,
      full: false,    // a cap reached: nothing more is read
      inPre: new Set(),  // <pre> elements and everything inside them: there whitespace is content
      totalText: 0,
      // The extension's own elements in the page (the reader view's and the note's frames): never its content.
      own: new Set(globalThis.__pithFrames ? globalThis.__pithFrames.hosts() : []),
    };
    const top = { x: window.scrollX, y: window.scrollY };
    if (doc.documentElement) walkTree(walk, doc.documentElement, true, -1, 0, top, window);
    return walk;
  }

  // One tree of the page in document order: a document from its root element (`withRoot`), or the children of
  // an open shadow root, hung under node `parent` at `depth`. A TreeWalker moves through it: one call per step
  // on one object, where reading firstChild and nextSibling off each node cost Firefox several times more. A
  // shadow root's children follow its host's light children; a same-origin iframe's document is walked as the
  // iframe's one child, offset by the frame's place.
  function walkTree(walk, root, withRoot, parent, depth, frame, view) {
    const walker = (root.ownerDocument || root).createTreeWalker(root, SHOWN);
    const ids = [];      // the elements the walker is inside of, by id
    const shadows = [];  // and the open shadow root of each, walked when its light children are done
    let node = withRoot ? root : walker.firstChild();
    while (node) {
      const inside = ids.length ? ids[ids.length - 1] : parent;
      const id = visit(walk, node, inside, depth + ids.length, frame, view);
      if (walk.full) return;
      let next = null;
      if (id >= 0) {
        const shadow = mayHostShadow(walk.nodes[id].tag) ? node.shadowRoot : null;
        next = walker.firstChild();
        if (next) {
          ids.push(id);
          shadows.push(shadow);
          node = next;
          continue;
        }
        if (shadow) walkTree(walk, shadow, false, id, depth + ids.length + 1, frame, view);
        if (walk.full) return;
      }
      next = walker.nextSibling();
      while (!next && ids.length) {
        walker.parentNode();
        const up = ids.pop();
        const shadow = shadows.pop();
        if (shadow) walkTree(walk, shadow, false, up, depth + ids.length + 1, frame, view);
        if (walk.full) return;
        next = walker.nextSibling();
      }
      node = next;
    }
  }

  // Whether an element of this tag can hold a shadow root (the DOM standard's attachShadow list, and custom
  // elements, whose names hold a hyphen; a name cut at MAX_TAG_CHARS may have lost it): the walk reads no
  // other element's shadowRoot, a read that crosses Firefox's content-script wrapper for every element.
  function mayHostShadow(tag) {
    return SHADOW_HOSTS.has(tag) || tag.includes("-") || tag.length >= L.MAX_TAG_CHARS;
  }

  // A same-origin iframe's document, as the one child of its node `id`, offset by the frame's place.
  function walkFrame(walk, el, id, depth, frame, view) {
    const inner = frameDocument(el);
    if (!inner) return;
    const rect = el.getBoundingClientRect();  // one read per frame, for its content's offset
    const x = Math.round(rect.left + frame.x) + el.clientLeft;
    const y = Math.round(rect.top + frame.y) + el.clientTop;
    walkTree(walk, inner.documentElement, true, id, depth, { x, y }, inner.defaultView || view);
  }

  // One node into the walk, under node `parent` (and an iframe's document after it): returns its id when the
  // walk is to go into its children (an element neither skipped nor leaf-only), else -1. Sets `walk.full` at a
  // cap.
  function visit(walk, node, parent, depth, frame, view) {
    if (node.nodeType === TEXT_NODE) {
      let text = node.data;
      if (!text) return -1;
      const blank = BLANK.test(text);
      if (blank && !walk.inPre.has(parent)) {
        text = " ";
      } else if (text.length > L.MAX_NODE_TEXT) {
        text = text.slice(0, L.MAX_NODE_TEXT);
        walk.truncated = true;
      }
      walk.totalText += text.length;
      if (walk.totalText > L.MAX_TOTAL_TEXT || walk.nodes.length >= L.MAX_NODES) {
        walk.truncated = walk.full = true;
        return -1;
      }
      const id = walk.nodes.length;
      addNode(walk, { id, parent, depth, tag: "#text", text }, node, -1, frame, view);  // nobody's owner
      if (!blank) markOwner(walk, parent);
      return -1;
    }
    const tag = node.localName;
    if (tag === "script") {
      const formula = formulaNodes(node, walk.nodes.length, parent, depth);
      if (walk.nodes.length + formula.length > L.MAX_NODES) {
        walk.truncated = walk.full = true;
        return -1;
      }
      for (const entry of formula) addNode(walk, entry, node, entry.id, frame, view);  // both map to the script
      return -1;
    }
    if (SKIP_SUBTREE.has(tag) || (walk.own.size && walk.own.has(node))) return -1;
    if (walk.nodes.length >= L.MAX_NODES) {
      walk.truncated = walk.full = true;
      return -1;
    }
    const id = walk.nodes.length;
    const entry = { id, parent, depth, tag: tag.slice(0, L.MAX_TAG_CHARS) };
    const names = node.getAttributeNames();
    if (names.length) markupFields(node, names, tag, entry);
    const owner = INLINE.has(entry.tag) ? (parent >= 0 ? walk.owners[parent] : -1) : id;
    addNode(walk, entry, node, owner, frame, view);
    if (tag === "pre" || walk.inPre.has(parent)) walk.inPre.add(id);
    if (!LEAF_ONLY.has(tag)) return id;
    if (tag === "iframe") walkFrame(walk, node, id, depth + 1, frame, view);
    return -1;
  }

  // The nodes a <script type="math/tex"> stands for: snapshot.py's formula_nodes, rule for rule (a <math> with
  // the TeX as its alt; a display formula in a <div> of its own); none for any other script.
  function formulaNodes(script, nid, parent, depth) {
    const type = script.getAttribute("type");
    if (!type || !type.toLowerCase().includes(TEX_SCRIPT_TYPE)) return [];  // a page's scripts are long: unread
    const parts = type.toLowerCase().split(";").map((p) => p.replace(HTML_SPACE, ""));
    const tex = cut(script.textContent || "");
    if (parts[0] !== TEX_SCRIPT_TYPE || !tex) return [];
    if (!parts.slice(1).includes(TEX_DISPLAY_MODE)) return [{ id: nid, parent, depth, tag: "math", alt: tex }];
    return [{ id: nid, parent, depth, tag: "div" }, { id: nid + 1, parent: nid, depth: depth + 1, tag: "math", alt: tex }];
  }

  function addNode(walk, entry, node, owner, frame, view) {
    walk.nodes.push(entry);
    walk.domNodes.push(node);
    walk.parents.push(entry.parent);
    walk.owners.push(owner);
    walk.role.push(0);
    walk.frames.push(frame);
    walk.views.push(view);
  }

  // A text node with text under `parent`: its owner (as blocks.py finds it: the nearest ancestor that is not
  // an inline element) gets role 2, and the owner's ancestors role 1.
  function markOwner(walk, parent) {
    const { owners, role, parents } = walk;
    const owner = parent >= 0 ? owners[parent] : -1;
    if (owner >= 0 && role[owner] !== 2) {
      const marked = role[owner] === 1;  // its ancestors are marked already
      role[owner] = 2;
      for (let a = marked ? -1 : parents[owner]; a >= 0 && role[a] === 0; a = parents[a]) role[a] = 1;
    }
  }

  // The page's title, lang and dir, as snapshot.py reads them.
  function pageFields(doc) {
    const root = doc.documentElement;
    const lang = root ? (root.getAttribute("lang") || "").trim().slice(0, L.MAX_LANG_CHARS) : "";
    const dir = root ? (root.getAttribute("dir") || "").trim().toLowerCase() : "";
    const title = doc.title.split(/\s+/).filter(Boolean).join(" ").slice(0, L.MAX_TITLE_CHARS);
    return { title: title || null, lang: lang || null, dir: DIRS.has(dir) ? dir : null };
  }

  // The nodes as rows, the form they travel in (docs/snapshot.md, "Rows"; read back by the host's
  // protocol.nodes_from_rows and the background's rows.js): [back, tag] or [back, tag, fields], [back, 0, text]
  // for a text node holding its text alone, `back` the row's index minus its parent's (0: no parent). Ids and
  // depths follow from the order. Half the bytes of the nodes, which the browser copies from the page to the
  // background and again to the host.
  const ROW_FIXED = new Set(["id", "parent", "depth", "tag"]);
  function nodeRows(nodes) {
    const rows = new Array(nodes.length);
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i];
      const back = node.parent < 0 ? 0 : i - node.parent;
      let fields = null;
      let count = 0;
      for (const key in node) {
        if (ROW_FIXED.has(key) || node[key] === undefined) continue;
        (fields ??= {})[key] = node[key];
        count++;
      }
      if (node.tag === "#text" && count === 1 && typeof node.text === "string") rows[i] = [back, 0, node.text];
      else rows[i] = fields ? [back, node.tag, fields] : [back, node.tag];
    }
    return rows;
  }

  /** The page as a snapshot: {json, nodes, takenAt, ms, json_ms, doneAt, readerPlaced}. `reader`: the one-time
   * token of a reader frame to lay over the page (content/frames.js) as soon as the snapshot is returned: the
   * frame loads while the snapshot travels and the host works, and laid after the walk it does not make the
   * walk lay the page out again. `keepMap`: keep the node map for the highlighter and Save's selection (false
   * for the reader's walk in the page's own world, background/page.js: the map is the isolated walk's). */
  function take(reader, keepMap = true) {
    const started = performance.now();
    const doc = document;
    const restore = settleAnimations(doc);
    let walk;
    let scrollHeight;
    try {
      walk = walkDocument(doc);
      addRenderFields(walk);
      scrollHeight = doc.documentElement ? doc.documentElement.scrollHeight : 0;
    } finally {
      restore();
    }
    const snapshot = {
      format: "pith-snapshot", version: 2, source: "live", url: location.href || null, ...pageFields(doc),
      viewport: { width: window.innerWidth, height: window.innerHeight, scroll_height: scrollHeight },
      ...pageMetadata(doc),
    };
    if (walk.truncated) snapshot.truncated = true;
    const takenAt = Date.now() + Math.random();
    if (keepMap) globalThis.__pith = { nodes: walk.domNodes, parents: walk.parents, url: location.href, takenAt };
    const walked = performance.now();
    // Sent as one JSON string, its nodes as rows, to the background and on to the host as it is: the browser
    // copies a string between processes far faster than it converts a tree of 10,000 small objects, and a
    // shorter string faster than a longer one.
    snapshot.rows = nodeRows(walk.nodes);
    const json = JSON.stringify(snapshot);
    const done = performance.now();
    // Laid once this call has returned the snapshot (the next task): creating the frame costs the page a few ms
    // that would otherwise hold the snapshot back.
    const readerPlaced = Boolean(reader && globalThis.__pithFrames);
    if (readerPlaced) setTimeout(() => globalThis.__pithFrames.place("reader", reader));
    return { json, nodes: walk.nodes.length, takenAt, ms: walked - started, json_ms: done - walked,
             doneAt: performance.timeOrigin + done, readerPlaced };
  }

  globalThis.__pithSnapshot = { take };
})();
