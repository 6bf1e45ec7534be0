// The snapshot's nodes from the rows they travel in (docs/snapshot.md, "Rows"; written by content/snapshot.js):
// the host reads the rows itself (native_host/browser/protocol.py, nodes_from_rows, the same rule); this side
// turns them back into nodes for whoever wants the snapshot as an object: `pith.snapshot`, "Record this page",
// a host older than the rows.

/** The snapshot whose JSON text is `json`, its `rows` turned back into `nodes` (ids and depths from the order). */
export function snapshotFromJson(json) {
  const snapshot = JSON.parse(json);
  if (!Array.isArray(snapshot.rows)) return snapshot;
  const { rows } = snapshot;
  const nodes = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const [back, tag, third] = rows[i];
    const parent = back ? i - back : -1;
    const depth = back ? nodes[parent].depth + 1 : 0;
    nodes[i] = tag === 0 ? { id: i, parent, depth, tag: "#text", text: third }
      : { id: i, parent, depth, tag, ...(third || {}) };
  }
  delete snapshot.rows;
  snapshot.nodes = nodes;
  return snapshot;
}
