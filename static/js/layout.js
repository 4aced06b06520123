// How a graph is laid out for its pane: Graphviz ranks top to bottom by default, which turns a
// long chain (a CNN's conv → relu → pool → … → linear) into a tall staircase that a landscape
// pane shrinks to unreadable text. A long graph is drawn left to right instead, wrapped into
// rows when that fits the pane better.

const LONG = 10;          // a graph deeper than this many levels may turn or wrap
const MAX_ROWS = 5;
const BETTER = 1.25;      // the default (top to bottom) is kept unless another fits this much larger

/** Each node's level, as late as it can be (inputs and weights sit beside their first user). */
function levels(graph) {
  const outs = new Map();
  for (const e of graph.edges) {
    if (!outs.has(e.src)) outs.set(e.src, []);
    outs.get(e.src).push(e.dst);
  }
  const height = new Map();
  const heightOf = (id, seen = new Set()) => {
    if (height.has(id)) return height.get(id);
    if (seen.has(id)) return 0;     // a cycle (never in a recorded graph): stop rather than loop
    seen.add(id);
    let h = 0;
    for (const d of outs.get(id) || []) h = Math.max(h, heightOf(d, seen) + 1);
    height.set(id, h);
    return h;
  };
  // deepest first: the record's order is topological, so its reverse fills heights bottom up
  for (const n of [...graph.nodes].reverse()) heightOf(n.id);
  const depth = Math.max(0, ...height.values()) + 1;
  return { depth, level: new Map([...height].map(([id, h]) => [id, depth - 1 - h])) };
}

/** A drawn box's size in points, guessed from its label (Graphviz's 11 pt Helvetica). */
function boxSize(graph) {
  const widths = graph.nodes.map((n) => {
    const lines = String(n.label || n.op || n.id).split("\n");
    if (n.shape) lines.push(`[${n.shape.join(",")}]`);
    return Math.max(54, 6.5 * Math.max(...lines.map((l) => l.length)) + 16);
  });
  const w = widths.reduce((a, b) => a + b, 0) / Math.max(1, widths.length);
  return { w, h: 36 };
}

/** The layout for `graph` in a pane of `pane` {width, height} CSS px: {direction, graph} and,
 *  wrapped, {rows, links} (see wrap). */
export function layoutFor(graph, pane) {
  const plain = { direction: "TB", graph };
  if (!graph.nodes.length) return plain;
  const { depth, level } = levels(graph);
  if (depth <= LONG) return plain;
  const perLevel = new Map();
  for (const l of level.values()) perLevel.set(l, (perLevel.get(l) || 0) + 1);
  const wide = Math.max(...perLevel.values());
  const box = boxSize(graph);
  const pw = pane?.width > 0 ? pane.width : 1000, ph = pane?.height > 0 ? pane.height : 600;
  const fits = (w, h) => Math.min(pw / w, ph / h);
  // sizes measured on Graphviz's drawings of CNNs and MLPs: top to bottom, a chain with weights
  // beside it drifts sideways (the staircase); left to right, shape labels widen each rank
  const tb = fits(wide * (box.w + 30) * 1.6, depth * (box.h + 78));
  let best = { rows: 0, score: tb * BETTER };
  for (let rows = 1; rows <= MAX_ROWS; rows++) {
    const across = Math.ceil(depth / rows);
    const score = fits((across + 1) * (box.w + 110), rows * (wide * (box.h + 22) + 40));
    if (score > best.score) best = { rows, score };
  }
  if (!best.rows) return plain;
  if (best.rows === 1) return { direction: "LR", graph };
  return { direction: "LR", graph, ...wrap(graph, level, Math.ceil(depth / best.rows)) };
}

/** `graph` cut into rows of `across` levels, each drawn on its own, left to right, and stacked:
 *  {rows: [graph…], links: [edges between rows]} (GraphView draws the links). A module's nodes
 *  keep to the row of its last one, so a module's frame is never torn across two rows. (Graphviz
 *  alone cannot be made to keep rows in order: its crossing minimisation reorders them.) */
function wrap(graph, level, across) {
  const row = new Map(graph.nodes.map((n) => [n.id, Math.floor(level.get(n.id) / across)]));
  const moduleRow = new Map();
  for (const n of graph.nodes) {
    if (n.module) moduleRow.set(n.module, Math.max(moduleRow.get(n.module) ?? 0, row.get(n.id)));
  }
  for (const n of graph.nodes) if (n.module) row.set(n.id, moduleRow.get(n.module));
  const count = Math.max(...row.values()) + 1;
  const rows = Array.from({ length: count }, () => ({ nodes: [], edges: [] }));
  for (const n of graph.nodes) rows[row.get(n.id)].nodes.push(n);
  const links = [];
  for (const e of graph.edges) {
    if (row.get(e.src) === row.get(e.dst)) rows[row.get(e.src)].edges.push(e);
    else links.push(e);
  }
  return { rows: rows.filter((r) => r.nodes.length), links };
}
