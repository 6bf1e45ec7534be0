// Images saved with the Markdown (the options' "Save the images"): each image of the article fetched as the
// browser has it (its cache first: the page just showed it), checked to be an image by its first bytes, and
// named images/<its hash>.<type>; the Markdown then points at those files. They are downloaded beside the
// Markdown in the save folder, or packed with it in one .zip (zip.js). An image that cannot be had stays a link
// to where the page has it.
import "../limits.js";
import { download, saveSettings } from "./save.js";
import { zipFiles } from "./zip.js";

const L = globalThis.PITH_LIMITS;
const { imageLinks, imageType, imageName, withLocalImages } = globalThis.PITH_DOCUMENT;

async function fetchImage(url) {
  const reply = await fetch(url, { cache: "force-cache", credentials: "include" });
  if (!reply.ok) throw new Error(`HTTP ${reply.status}`);
  if (Number(reply.headers.get("content-length")) > L.MAX_IMAGE_BYTES) throw new Error("too large");
  const bytes = new Uint8Array(await reply.arrayBuffer());
  if (bytes.length > L.MAX_IMAGE_BYTES) throw new Error("too large");
  return bytes;
}

/** The images of `markdown` from the page at `pageUrl`: {markdown: its links made local, files: [{name, mime,
 * bytes}], failed}. Only http(s) images are fetched, at most MAX_SAVED_IMAGES. */
async function fetchImages(markdown, pageUrl) {
  const local = {};
  const files = [];
  let failed = 0;
  for (const link of imageLinks(markdown).slice(0, L.MAX_SAVED_IMAGES)) {
    let url;
    try {
      url = new URL(link, pageUrl || undefined);
    } catch {
      failed += 1;
      continue;
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") continue;
    try {
      const bytes = await fetchImage(url.href);
      const ext = imageType(bytes);
      if (!ext) throw new Error("not an image");
      const name = await imageName(bytes, ext);
      if (!files.some((f) => f.name === name)) files.push({ name, mime: `image/${ext === "jpg" ? "jpeg" : ext}`, bytes });
      local[link] = name;
    } catch {
      failed += 1;
    }
  }
  return { markdown: withLocalImages(markdown, local), files, failed };
}

/** {markdown: with the saved images' links made local, saved, failed}: the images downloaded to images/ of the
 * save folder. */
export async function saveImages(markdown, pageUrl) {
  const found = await fetchImages(markdown, pageUrl);
  const settings = await saveSettings();
  for (const file of found.files) {
    // The same name holds the same bytes: a second save of it writes the file it finds again.
    await download({ filename: file.name, mime: file.mime, content: file.bytes }, { conflictAction: "overwrite",
                                                                                     saveAs: false, settings });
  }
  return { markdown: found.markdown, saved: found.files.length, failed: found.failed };
}

/** The saved document `doc` ({filename, content: its Markdown}) and its images in one .zip: {doc: the zip's
 * document, saved, failed}. The zip holds the Markdown under its own name and the images in images/, which its
 * links name. `makeDoc(markdown)` makes the document from the Markdown with its links made local. */
export async function zipWithImages(markdown, pageUrl, makeDoc) {
  const found = await fetchImages(markdown, pageUrl);
  const doc = makeDoc(found.markdown);
  const files = [{ name: doc.filename, bytes: new TextEncoder().encode(doc.content) },
                 ...found.files.map((f) => ({ name: f.name, bytes: f.bytes }))];
  const filename = `${doc.filename.replace(/\.md$/, "")}.zip`;
  return { doc: { filename, mime: "application/zip", content: zipFiles(files) }, saved: found.files.length,
           failed: found.failed };
}

/** The document to download for `markdown` saved as `format`, with the article's images as the options
 * `settings` say: in one .zip, beside it in the save folder (not with Save As: the file's place is then the
 * user's to choose), or left as links. {doc, images: {saved, failed} or null}. `makeDoc(markdown)` makes the
 * document from the Markdown with its links made local. */
export async function documentWithImages(markdown, format, pageUrl, settings, makeDoc) {
  if (!settings.images || format !== "markdown") return { doc: makeDoc(markdown), images: null };
  if (settings.imagesAs === "zip") {
    const zipped = await zipWithImages(markdown, pageUrl, makeDoc);
    return { doc: zipped.doc, images: { saved: zipped.saved, failed: zipped.failed } };
  }
  if (settings.saveAs) return { doc: makeDoc(markdown), images: null };
  const saved = await saveImages(markdown, pageUrl);
  return { doc: makeDoc(saved.markdown), images: { saved: saved.saved, failed: saved.failed } };
}
