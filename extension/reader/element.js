// The reader's one way to make its elements (reader.js, narrate.js): no markup strings, so nothing the page
// wrote is ever parsed as HTML here.

/** An element of the view: `attrs` as attributes (true: present and empty; false or null: left out). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === true) el.setAttribute(name, "");
    else if (value !== false && value != null) el.setAttribute(name, String(value));
  }
  el.append(...children);
  return el;
}
