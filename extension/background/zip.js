// A .zip of a few files, stored (not compressed): what Save writes when the options ask for the Markdown and its
// images in one file. Pictures are compressed already and the Markdown is small, so storing costs little and
// keeps this a page of code (the format: PKWARE's APPNOTE, local headers, the central directory, its end).
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** The CRC-32 of `bytes` (the zip's and PNG's, polynomial 0xEDB88320). */
export function crc32(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A date as MS-DOS writes it in a zip: [time, date] (2-second steps; years 1980 to 2107). */
function dosTime(date) {
  const year = Math.min(Math.max(date.getFullYear(), 1980), 2107);
  return [(date.getHours() << 11) | (date.getMinutes() << 5) | (date.getSeconds() >> 1),
          ((year - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate()];
}

/** Little-endian fields ([width in bytes, 2 or 4; value] each) as bytes. */
function fields(...pairs) {
  const view = new DataView(new ArrayBuffer(pairs.reduce((n, [width]) => n + width, 0)));
  let at = 0;
  for (const [width, value] of pairs) {
    if (width === 2) view.setUint16(at, value, true);
    else view.setUint32(at, value, true);
    at += width;
  }
  return new Uint8Array(view.buffer);
}

/** The bytes of a zip holding `files` ([{name, bytes}], names with "/" for folders, UTF-8), each stored, all
 * dated `date`. Under 4 GiB in all (the extension's limits keep it far below: no ZIP64). */
export function zipFiles(files, date = new Date()) {
  const utf8 = new TextEncoder();
  const [time, day] = dosTime(date);
  const locals = [];
  const central = [];
  let offset = 0;
  for (const file of files) {
    const name = utf8.encode(file.name);
    const crc = crc32(file.bytes);
    const size = file.bytes.length;
    // Version 2.0, flag 0x800 (the name is UTF-8), method 0 (stored), no extra field.
    const common = [[2, 0x800], [2, 0], [2, time], [2, day], [4, crc], [4, size], [4, size], [2, name.length], [2, 0]];
    locals.push(fields([4, 0x04034b50], [2, 20], ...common), name, file.bytes);
    // Then no comment, disk 0, no internal or external attributes, and where its local header is.
    central.push(fields([4, 0x02014b50], [2, 20], [2, 20], ...common, [2, 0], [2, 0], [2, 0], [4, 0], [4, offset]), name);
    offset += 30 + name.length + size;
  }
  const centralSize = central.reduce((n, part) => n + part.length, 0);
  const end = fields([4, 0x06054b50], [2, 0], [2, 0], [2, files.length], [2, files.length], [4, centralSize],
                     [4, offset], [2, 0]);
  const parts = [...locals, ...central, end];
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
