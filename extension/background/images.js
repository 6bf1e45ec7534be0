// Images saved beside the Markdown (the options' "Save the images"): each image of the article fetched as the
// browser has it (its cache first: the page just showed it), checked to be an image by its first bytes, and
// downloaded to images/<its hash>.<type> in the save folder; the Markdown then points at those files. An image
// that cannot be had stays a link to where the page has it.
import "../limits.js";
import { download } from "./save.js";

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

/** {markdown: with the saved images' links made local, saved, failed}, for `markdown` from the page at
 * `pageUrl`. Only http(s) images are fetched, at most MAX_SAVED_IMAGES. */
export async function saveImages(markdown, pageUrl) {
  const local = {};
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
      const filename = await imageName(bytes, ext);
      // The same name holds the same bytes: a second save of it writes the file it finds again.
      await download({ filename, mime: `image/${ext === "jpg" ? "jpeg" : ext}`, content: bytes },
                     { conflictAction: "overwrite", saveAs: false });
      local[link] = filename;
    } catch {
      failed += 1;
    }
  }
  return { markdown: withLocalImages(markdown, local), saved: Object.keys(local).length, failed };
}
