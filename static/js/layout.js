// How a graph is laid out for its pane: Graphviz ranks top to bottom by default, which turns a
// long chain (a CNN's conv → relu → pool → … → linear) into a tall staircase that a landscape
// pane shrinks to unreadable text. A long graph is drawn left to right instead, wrapped into
// rows when that fits the pane better.

const LONG = 10;          // a graph deeper than this many levels may turn or wrap
const MAX_ROWS = 5;
const BETTER = 1.25;      // the default (top to bottom) is kept unless another fits this much larger

/** Each node's level. The longest chain sets the levels; a node feeding into it (an input, a weight
 *  and its transpose) sits as late as it can, beside its first user; a node hanging off it (a
 *  backward graph's AccumulateGrad) as early as it can, beside what made it. */
function levels(graph) {
  const outs = new Map(), ins = new Map();
  for (const e of graph.edges) {
    if (!outs.has(e.src)) outs.set(e.src, []);
    outs.get(e.src).push(e.dst);
    if (!ins.has(e.dst)) ins.set(e.dst, []);
    ins.get(e.dst).push(e.src);
  }
  // longest path to an end (height) and from a start (rank); a cycle (never in a recorded graph)
  // is cut where it closes rather than looped
  const longest = (next, memo) => {
    const walk = (id, seen) => {
      if (memo.has(id)) return memo.get(id);
      if (seen.has(id)) return 0;
      seen.add(id);
      let h = 0;
      for (const d of next.get(id) || []) h = Math.max(h, walk(d, seen) + 1);
      memo.set(id, h);
      return h;
    };
    for (const n of graph.nodes) walk(n.id, new Set());
    return memo;
  };
  const height = longest(outs, new Map()), rank = longest(ins, new Map());
  const depth = Math.max(0, ...height.values()) + 1;
  const feeds = new Map();   // whether a node leads into the longest chain
  const leads = (id, seen = new Set()) => {
    if (feeds.has(id)) return feeds.get(id);
    if (seen.has(id)) return false;
    seen.add(id);
    const on = rank.get(id) + height.get(id) === depth - 1;
    const v = on || (outs.get(id) || []).some((d) => leads(d, seen));
    feeds.set(id, v);
    return v;
  };
  const level = new Map(graph.nodes.map((n) => [n.id, leads(n.id) ? depth - 1 - height.get(n.id) : rank.get(n.id)]));
  return { depth, level };
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
