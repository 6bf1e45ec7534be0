// An offscreen page with one job: turn a saved article into a blob: URL for the downloads API. Chromium's
// service worker cannot make object URLs, and a data: URL is capped near 2 MB, too small for a long article.
const api = globalThis.browser ?? globalThis.chrome;

api.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (sender.id !== api.runtime.id || !message) return false;
  if (message.type === "pith.blob.create") {
    const content = message.binary ? Uint8Array.from(atob(message.content), (c) => c.charCodeAt(0)) : message.content;
    const type = message.binary ? message.mime : `${message.mime};charset=utf-8`;
    sendResponse({ url: URL.createObjectURL(new Blob([content], { type })) });
  } else if (message.type === "pith.blob.revoke") {
    URL.revokeObjectURL(message.url);
    sendResponse({ ok: true });
  }
  return false;
});
