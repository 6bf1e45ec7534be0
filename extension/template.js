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
