// Large graphs stay readable: nodes are grouped by module path (collapsed clusters, expandable),
// and runs of identical numbered blocks (layers.0 … layers.11) fold into one "Block ×12" node.

import { t } from "./i18n.js";

export const FULL_LIMIT = 150;     // graphs up to this size are drawn node by node
export const HARD_LIMIT = 1500;    // past this even the folded graph waits for "draw anyway"
const MIN_REPEAT = 3;
const FIRST_VIEW_MIN = 12;         // a first view with fewer boxes opens its biggest module...
const FIRST_VIEW_MAX = 80;         // ...unless that would draw more than this

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

/** Runs of consecutive sibling blocks `parent.<n>` with identical contents (by op multiset),
 *  at least MIN_REPEAT long, folded into one node unless `parent.*<first>` is expanded. */
function repeatedBlocks(members, expanded) {
  const byParent = new Map();
  for (const [key, nodes] of members) {
    const parent = parentOf(key) ?? "";   // "": a top-level nn.Sequential's own children 0, 1, 2…
    const last = key.slice(key.lastIndexOf(".") + 1);
    if (!/^\d+$/.test(last)) continue;
    if (!byParent.has(parent)) byParent.set(parent, []);
    byParent.get(parent).push({ key, index: Number(last), signature: nodes.map((n) => n.op).sort().join(",") });
  }
  const fold = new Map();   // block key -> the run it is folded into
  for (const [parent, blocks] of byParent) {
    blocks.sort((a, b) => a.index - b.index);
    let start = 0;
    for (let i = 1; i <= blocks.length; i++) {
      const continues = i < blocks.length && blocks[i].index === blocks[i - 1].index + 1
        && blocks[i].signature === blocks[start].signature;
      if (continues) continue;
      const run = blocks.slice(start, i);
      const key = parent ? `${parent}.*${run[0].index}` : `*${run[0].index}`;
      if (run.length >= MIN_REPEAT && !expanded.has(key)) {
        for (const b of run) fold.set(b.key, { key, parent, count: run.length, first: run[0].key, last: run.at(-1).key });
      }
      start = i;
    }
  }
  return fold;
}

const opsSaid = (ops) => (ops.length ? `: ${ops.slice(0, 2).join(", ")}${ops.length > 2 ? ", …" : ""}` : "");

/**
 * The graph to draw. `expanded` is a Set of module prefixes (and `parent.*<n>` for unfolded repeats);
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
  // a graph has far fewer modules than nodes: each module's folded prefix is found once
  const keys = new Map();
  const keyFor = (module) => {
    if (!keys.has(module)) keys.set(module, keyOf(module, expanded));
    return keys.get(module);
  };
  const members = new Map();
  for (const n of nodes) {
    const key = keyFor(n.module);
    if (key === null) continue;
    if (!members.has(key)) members.set(key, []);
    members.get(key).push(n);
  }
  // a module-less constant (LayerNorm's eps, a literal 2.0) used only inside one folded module
  // belongs to it: left outside it would float as one loose box per block
  const consumers = new Map();
  for (const e of graph.edges || []) {
    if (!consumers.has(e.src)) consumers.set(e.src, new Set());
    consumers.get(e.src).add(e.dst);
  }
  const moduleOf = new Map(nodes.map((n) => [n.id, n.module]));
  const absorbed = new Map();   // node id -> module it is drawn in
  for (const n of nodes) {
    // only scalar literals: a data tensor (the batch x) stays visible where it enters
    if (n.module || n.kind !== "const" || (n.shape && n.shape.length)) continue;
    const users = [...(consumers.get(n.id) || [])].map((id) => keyFor(moduleOf.get(id)));
    if (users.length && users[0] !== null && users.every((k) => k === users[0])) absorbed.set(n.id, users[0]);
  }
  const moduleFor = (n) => absorbed.get(n.id) ?? n.module;
  for (const n of nodes) {
    if (!absorbed.has(n.id)) continue;
    const key = absorbed.get(n.id);
    if (!members.has(key)) members.set(key, []);
    members.get(key).push(n);
  }
  const repeats = repeatedBlocks(members, expanded);
  const outNodes = [];
  const emitted = new Set();
  for (const n of nodes) {
    const key = keyFor(moduleFor(n));
    if (key === null) { displayOf.set(n.id, n.id); outNodes.push(n); continue; }
    const rep = repeats.get(key);
    const foldKey = rep ? rep.key : key;
    const id = `fold_${foldKey.replace(/:/g, "_")}`;   // ":" would read as a DOT port
    displayOf.set(n.id, id);
    if (!folds.has(id)) {
      folds.set(id, { module: foldKey, count: 0, repeat: rep || null, ops: [] });
    }
    const info = folds.get(id);
    info.count += 1;
    // what the module does, named on its box (a Sequential's "3" says nothing by itself)
    if (!["param", "const", "input"].includes(n.kind) && n.op !== "transpose" && !info.ops.includes(n.op)) info.ops.push(n.op);
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
      ? `${t("fold.block", { n: info.repeat.count })}\n${info.repeat.first}–${info.repeat.last.split(".").pop()}\n${t("fold.ops", { n: info.count })}`
      : `${info.module}${opsSaid(info.ops)}\n${t("fold.ops", { n: info.count })}`;
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

/** Whether a graph has module structure to fold by (then it offers Collapse all / Expand all). */
export function foldable(graph) {
  return (graph.nodes || []).some((n) => n.module);
}

/** Whether a graph should open collapsed (large, and has module structure to collapse by). */
export function shouldCollapse(graph) {
  const nodes = graph.nodes || [];
  return nodes.length > FULL_LIMIT && nodes.some((n) => n.module);
}

/** The first view of a large graph: open the biggest plain module (not a "Block ×N" fold)
 *  while the drawing stays small, so the top level shows real structure, not one box. */
export function initialExpansion(graph) {
  let expanded = new Set();
  for (let depth = 0; depth < 6; depth++) {
    const { graph: shown, folds } = displayGraph(graph, expanded);
    if (shown.nodes.length >= FIRST_VIEW_MIN) break;
    const biggest = [...folds.values()].filter((f) => !f.repeat).sort((a, b) => b.count - a.count)[0];
    if (!biggest) break;
    const trial = new Set(expanded).add(biggest.module);
    if (displayGraph(graph, trial).graph.nodes.length > FIRST_VIEW_MAX) break;
    expanded = trial;
  }
  return expanded;
}
