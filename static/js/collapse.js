// Large graphs stay readable: nodes are grouped by module path (collapsed clusters, expandable),
// and runs of identical numbered blocks (layers.0 … layers.11) fold into one "Block ×12" node.

export const FULL_LIMIT = 150;     // graphs up to this size are drawn node by node
export const HARD_LIMIT = 1500;    // past this even the folded graph waits for "draw anyway"
const MIN_REPEAT = 3;

const parentOf = (path) => (path.includes(".") ? path.slice(0, path.lastIndexOf(".")) : null);

/** The folded prefix a node belongs to, or null when every level of its module is expanded. */
function keyOf(module, expanded) {
  if (!module) return null;
  const parts = module.split(".");
  for (let i = 1; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join(".");
    if (!expanded.has(prefix)) return prefix;
  }
  return null;
}

/** Groups of sibling blocks `parent.<n>` with identical contents, folded unless `parent.*` is expanded. */
function repeatedBlocks(members, expanded) {
  const byParent = new Map();
  for (const [key, nodes] of members) {
    const parent = parentOf(key);
    const last = key.slice(key.lastIndexOf(".") + 1);
    if (parent === null || !/^\d+$/.test(last) || expanded.has(`${parent}.*`)) continue;
    const signature = nodes.map((n) => n.op).sort().join(",");
    const k = `${parent}\u0000${signature}`;
    if (!byParent.has(k)) byParent.set(k, { parent, keys: [] });
    byParent.get(k).keys.push(key);
  }
  const fold = new Map();   // block key -> folded key
  for (const { parent, keys } of byParent.values()) {
    if (keys.length < MIN_REPEAT) continue;
    keys.sort((a, b) => Number(a.slice(parent.length + 1)) - Number(b.slice(parent.length + 1)));
    for (const key of keys) fold.set(key, { key: `${parent}.*`, parent, count: keys.length, first: keys[0], last: keys.at(-1) });
  }
  return fold;
}

/**
 * The graph to draw. `expanded` is a Set of module prefixes (and `parent.*` for unfolded repeats);
 * `expanded === null` means "draw everything" (small graphs).
 * Returns {graph, displayOf: Map(node id -> drawn id), folds: Map(drawn id -> info), tooLarge}.
 */
export function displayGraph(graph, expanded) {
  const nodes = graph.nodes || [];
  const displayOf = new Map();
  const folds = new Map();
  if (expanded === null) {
    for (const n of nodes) displayOf.set(n.id, n.id);
    return { graph, displayOf, folds, tooLarge: nodes.length > HARD_LIMIT };
  }
  const members = new Map();
  for (const n of nodes) {
    const key = keyOf(n.module, expanded);
    if (key === null) continue;
    if (!members.has(key)) members.set(key, []);
    members.get(key).push(n);
  }
  const repeats = repeatedBlocks(members, expanded);
  const outNodes = [];
  const emitted = new Set();
  for (const n of nodes) {
    const key = keyOf(n.module, expanded);
    if (key === null) { displayOf.set(n.id, n.id); outNodes.push(n); continue; }
    const rep = repeats.get(key);
    const foldKey = rep ? rep.key : key;
    const id = `fold_${foldKey.replace(/:/g, "_")}`;   // ":" would read as a DOT port
    displayOf.set(n.id, id);
    if (!folds.has(id)) {
      folds.set(id, { module: foldKey, count: 0, repeat: rep || null });
    }
    folds.get(id).count += 1;
    if (emitted.has(id)) continue;
    emitted.add(id);
    const parent = rep ? rep.parent : parentOf(key);
    outNodes.push({ id, op: "module", kind: "op", module: parent && expanded.has(parent) ? parent : null,
                    label: "", shape: null, folded: true });
  }
  for (const n of outNodes) {
    if (!n.folded) continue;
    const info = folds.get(n.id);
    n.label = info.repeat
      ? `Block ×${info.repeat.count}\n${info.repeat.first}–${info.repeat.last.split(".").pop()}\n${info.count} ops`
      : `${info.module}\n${info.count} ops`;
  }
  const seen = new Set();
  const outEdges = [];
  for (const e of graph.edges || []) {
    const src = displayOf.get(e.src), dst = displayOf.get(e.dst);
    if (!src || !dst || src === dst) continue;
    const k = `${src}\u0000${dst}`;
    if (seen.has(k)) continue;
    seen.add(k);
    outEdges.push({ src, dst, shape: e.shape ?? null });
  }
  return { graph: { nodes: outNodes, edges: outEdges }, displayOf, folds, tooLarge: outNodes.length > HARD_LIMIT };
}

/** Whether a graph should open collapsed (large, and has module structure to collapse by). */
export function shouldCollapse(graph) {
  const nodes = graph.nodes || [];
  return nodes.length > FULL_LIMIT && nodes.some((n) => n.module);
}

/** Open single wrapper modules (a model whose everything sits in "layers") until the top level
 *  shows real structure: several groups, or a repeat fold such as "Block ×12". */
export function initialExpansion(graph) {
  const expanded = new Set();
  for (let depth = 0; depth < 6; depth++) {
    const { folds } = displayGraph(graph, expanded);
    if (folds.size !== 1) break;
    const only = [...folds.values()][0];
    if (only.repeat) break;
    expanded.add(only.module);
  }
  return expanded;
}
