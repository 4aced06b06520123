// A pass snapshot's after-graph and IR text, whole or stored as a patch on an earlier snapshot's
// (engine/record/snapshots.py describes the form: unchanged nodes and incoming edges by id, IR
// lines as [start, end] ranges of the base text). Resolved once per snapshot and kept.

const resolvedGraphs = new WeakMap();
const resolvedIRs = new WeakMap();

function edgesInto(edges) {
  const into = new Map();
  for (const e of edges) {
    if (!into.has(e.dst)) into.set(e.dst, []);
    into.get(e.dst).push(e);
  }
  return into;
}

/** The after-graph of passes[i] ({nodes, edges}), or null when the snapshot has none. */
export function passGraph(passes, i) {
  const p = passes?.[i];
  if (!p) return null;
  if (p.graph || !p.graph_patch) return p.graph || null;
  if (resolvedGraphs.has(p)) return resolvedGraphs.get(p);
  const patch = p.graph_patch;
  const base = passGraph(passes, patch.base) || { nodes: [], edges: [] };
  const byId = new Map(base.nodes.map((n) => [n.id, n]));
  const nodes = patch.nodes.map((n) => (typeof n === "string" ? byId.get(n) : n)).filter(Boolean);
  let edges = base.edges;
  if (patch.edges) {
    const into = edgesInto(base.edges);
    edges = patch.edges.flatMap((e) => (typeof e === "string" ? into.get(e) || [] : [e]));
  }
  const graph = { nodes, edges };
  resolvedGraphs.set(p, graph);
  return graph;
}

/** The IR text after passes[i] ("" when the snapshot has none). */
export function passIR(passes, i) {
  const p = passes?.[i];
  if (!p) return "";
  if (typeof p.ir === "string" || !p.ir_patch) return p.ir || "";
  if (resolvedIRs.has(p)) return resolvedIRs.get(p);
  const base = passIR(passes, p.ir_patch.base).split("\n");
  const text = p.ir_patch.lines.flatMap((l) => (Array.isArray(l) ? base.slice(l[0], l[1]) : [l])).join("\n");
  resolvedIRs.set(p, text);
  return text;
}
