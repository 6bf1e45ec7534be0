// The options page: where saved files go (a folder in Downloads, or the browser's Save As each time), their
// format, and the template of their name and properties, with a live preview of the file and every problem
// named. Nothing is stored until it all reads: the background (background/save.js) trusts what is stored.
const api = globalThis.browser ?? globalThis.chrome;
const T = globalThis.PITH_TEMPLATE;
const { articleDocument, saveFolder } = globalThis.PITH_DOCUMENT;
const $ = (id) => document.getElementById(id);
const DEFAULT_TEXT = T.formatTemplate(T.DEFAULT_TEMPLATE);
// What the preview shows: an article as the host sends one.
const SAMPLE = {
  title: "The Future of Banking Is Here, and You're Broke", byline: "Morag Ellison", date: "2026-03-01T09:30:00+00:00",
  site_name: "The Harbour Gazette", url: "https://news.example/banking", description: "Why the money moved, and where.",
  page_type: "article", word_count: 1240, reading_minutes: 6, lang: "en", tags: ["money", "banks"],
  markdown: "Every evening at dusk, the bank's lights go out one floor at a time.\n\n## What changed\n\n...",
  text: "Every evening at dusk, the bank's lights go out one floor at a time.\n\nWhat changed\n\n...",
};

function check() {
  const parsed = T.parseTemplate($("template").value);
  const folder = saveFolder($("folder").value);
  const errors = parsed.errors || [];
  $("errors").replaceChildren(...errors.map((e) => Object.assign(document.createElement("li"), { textContent: e })));
  $("errors").hidden = !errors.length;
  $("template").setAttribute("aria-invalid", String(!!errors.length));
  $("folder-error").textContent = folder.error || "";
  $("folder-error").hidden = !folder.error;
  $("folder").setAttribute("aria-invalid", String(!!folder.error));
  if (parsed.template) {
    const doc = articleDocument({ ...SAMPLE, template: parsed.template, selection: "the selected words" }, $("format").value);
    $("preview-name").textContent = `${folder.folder ? `${folder.folder}/` : ""}${doc.filename}`;
    $("preview").textContent = doc.content;
  }
  $("save").disabled = !!(errors.length || folder.error);
  return { template: parsed.template, folder };
}

async function save() {
  const { template, folder } = check();
  if (!template || folder.error) return;
  const text = $("template").value;
  await api.storage.local.set({ saveFormat: $("format").value, saveFolder: folder.folder, saveAs: $("save-as").checked,
                                saveImages: $("images").checked, saveImagesAs: $("images-as").value, saveTemplate: text });
  $("status").textContent = "Saved";
  document.documentElement.dataset.saved = String(Number(document.documentElement.dataset.saved || 0) + 1);
}

async function main() {
  const stored = await api.storage.local.get(["saveFormat", "saveTemplate", "saveFolder", "saveAs", "saveImages",
                                              "saveImagesAs"]);
  $("variables").replaceChildren(...T.VARIABLES.flatMap((v, i) => [
    ...(i ? [", "] : []), Object.assign(document.createElement("code"), { textContent: v })]));
  $("format").value = stored.saveFormat === "text" ? "text" : "markdown";
  $("folder").value = typeof stored.saveFolder === "string" ? stored.saveFolder : "";
  $("save-as").checked = stored.saveAs === true;
  $("images").checked = stored.saveImages === true;
  $("images-as").value = stored.saveImagesAs === "zip" ? "zip" : "folder";
  $("template").value = typeof stored.saveTemplate === "string" ? stored.saveTemplate : DEFAULT_TEXT;
  for (const id of ["template", "folder", "format"]) {
    $(id).addEventListener("input", () => { $("status").textContent = ""; check(); });
  }
  for (const id of ["save-as", "images", "images-as"]) $(id).addEventListener("change", () => { $("status").textContent = ""; });
  $("reset").addEventListener("click", () => { $("template").value = DEFAULT_TEXT; check(); });
  $("save").addEventListener("click", save);
  check();
  document.documentElement.dataset.ready = "true";
}

main();
