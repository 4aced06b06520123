// One identity for a node across the page: its source line, the captured graph, every pass
// snapshot, its fusion group, its kernel and the kernel's lines. A view that shows nodes picks
// (click: kept across tabs) or hovers (while the pointer is there) an identity here; every
// subscribed view lights what stands for it in its own drawing by toggling classes, never by
// redrawing.
//
// An identity names node ids at one stage of a graph: stage 0 is the graph as captured, stage
// k + 1 the graph after passes[k], the last stage the graph the kernels were generated from.
// Passes keep ids; a snapshot's `replaced` says which node stands for another afterwards (CSE,
// x*1 -> x) and `removed` ends a node that nothing replaced.
import { passGraph } from "./passgraphs.js";

let picked = null;      // {graph, side, stage, ids, line?}: stays until another pick or a reset
let hovered = null;     // a passing hover; while it is null the pick shows
const listeners = new Set();

/** The identity the page shows: the hovered one, else the picked one (or null). */
export function current() { return hovered || picked; }

export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function notify(reason) {
  const ident = current();
  for (const fn of listeners) fn(ident, reason);
}

const sameIdent = (a, b) => a === b || (!!a && !!b && a.graph === b.graph && a.side === b.side && a.stage === b.stage
  && a.line === b.line && a.ids.length === b.ids.length && a.ids.every((id, i) => id === b.ids[i]));

/** Keep `ident` as the page's identity (null clears it). */
export function pick(ident) {
  hovered = null;
  picked = ident && ident.ids.length ? ident : null;
  notify("pick");
}

/** Show `ident` while the pointer is on it; null goes back to the pick. */
export function hover(ident) {
  const next = ident && (ident.ids.length || ident.line) ? ident : null;
  if (sameIdent(next, hovered)) return;
  hovered = next;
  notify("hover");
}

export function reset() {
  picked = hovered = null;
  notify("reset");
}

/** The pick as text for a share link ("g1|forward|5|%11,%12"), or null. */
export function encode() {
  return picked ? [picked.graph, picked.side || "forward", picked.stage, picked.ids.join(",")].join("|") : null;
}

/** The identity a share link's text names (null when malformed). */
export function decode(text) {
  const [graph, side, stage, ids] = String(text || "").split("|");
  if (!graph || !["forward", "backward"].includes(side) || !/^\d+$/.test(stage) || !ids) return null;
  return { graph, side, stage: Number(stage), ids: ids.split(",").filter(Boolean) };
}

// ---- following a node through the passes ----------------------------------------------------------

const idSets = new WeakMap();   // graph -> [Set of node ids per stage]

/** The nodes of a graph at a stage (0: as captured; k + 1: after passes[k]). */
export function nodesAt(graph, stage) {
  if (!stage) return graph?.forward?.nodes || [];
  return passGraph(graph.passes, stage - 1)?.nodes || [];
}

/** The stage the kernels were generated from: after the last pass. */
export const finalStage = (graph) => graph?.passes?.length || 0;

function present(graph, id, stage) {
  if (!idSets.has(graph)) idSets.set(graph, []);
  const sets = idSets.get(graph);
  if (!sets[stage]) sets[stage] = new Set(nodesAt(graph, stage).map((n) => n.id));
  return sets[stage].has(id);
}

/** What node `id` at stage `from` is at stage `to` (>= from): followed through each pass's
 * `replaced`, null once a pass removed it. */
export function follow(graph, id, from, to) {
  const passes = graph?.passes || [];
  for (let k = from; id && k < to; k++) {
    id = passes[k]?.replaced?.[id] ?? id;
    if (!present(graph, id, k + 1)) return null;
  }
  return id;
}

/**
 * The node ids that stand at stage `at` of `graph` (on its `side`) for what `ident` names: the
 * same nodes followed forward, or, looking back, every earlier node that became one of them.
 */
export function idsAt(graph, ident, at, side = "forward") {
  if (!ident || !graph || ident.graph !== graph.id || (ident.side || "forward") !== side) return [];
  if (side === "backward") return ident.ids;       // passes run on the forward graph only
  if (at >= ident.stage) return [...new Set(ident.ids.map((id) => follow(graph, id, ident.stage, at)).filter(Boolean))];
  const want = new Set(ident.ids);
  return nodesAt(graph, at).map((n) => n.id).filter((id) => want.has(follow(graph, id, at, ident.stage)));
}

/** The user's source lines of an identity: its own line and those of its nodes, as captured and
 * at its stage (a node a pass added has no line of its own). */
export function linesOf(graph, ident) {
  if (!ident) return [];
  const lines = new Set(ident.line ? [ident.line] : []);
  if (graph && ident.graph === graph.id) {
    const side = ident.side || "forward";
    const pools = side === "backward" ? [[graph.backward?.nodes || [], ident.ids]]
      : [[nodesAt(graph, 0), idsAt(graph, ident, 0)], [nodesAt(graph, ident.stage), ident.ids]];
    for (const [nodes, ids] of pools) {
      const want = new Set(ids);
      for (const n of nodes) if (want.has(n.id) && n.line) lines.add(n.line);
    }
  }
  return [...lines].sort((a, b) => a - b);
}

/** The fusion group mates of `ids` in a drawn graph whose nodes carry `group` (excluding `ids`). */
export function groupMates(nodes, ids) {
  const want = new Set(ids);
  const groups = new Set(nodes.filter((n) => want.has(n.id) && n.group).map((n) => n.group));
  return nodes.filter((n) => groups.has(n.group) && !want.has(n.id)).map((n) => n.id);
}

// ---- kernel source -------------------------------------------------------------------------------

const NODE_COMMENT = /(?:\/\*|#)\s*(%[\w.]+) = /;
const USER_LINE = /\| line (\d+):/;

/**
 * Per line of a generated kernel's source, the node it computes and that node's user line, or
 * null: a comment "%5 = mul(%0, %1)  | line 10: ..." names the node of the statements under it,
 * up to the next comment, loop or closing brace.
 */
export function kernelLineNodes(source) {
  let node = null, line = null;
  return String(source || "").split("\n").map((text) => {
    const m = NODE_COMMENT.exec(text);
    if (m) {
      node = m[1];
      line = Number(USER_LINE.exec(text)?.[1]) || null;
    } else if (/^\s*(}|\/\*|\/\/|#|for\b|if\b|return\b|def\b|$)/.test(text) || /\{\s*$/.test(text)) {
      node = line = null;
    }
    return node ? { node, line } : null;
  });
}

// ---- the autograd DAGs: a forward node and its backward partners ----------------------------------

const dagIndex = new WeakMap();   // graph -> {partners: forward id -> [backward ids], backward: id -> node}

function dagIndexOf(graph) {
  let index = dagIndex.get(graph);
  if (!index) {
    index = { partners: new Map(), backward: new Map() };
    for (const b of graph.backward?.nodes || []) {
      index.backward.set(b.id, b);
      if (!b.forward_node) continue;
      if (!index.partners.has(b.forward_node)) index.partners.set(b.forward_node, []);
      index.partners.get(b.forward_node).push(b.id);
    }
    dagIndex.set(graph, index);
  }
  return index;
}

/**
 * What an identity lights in the forward DAG (as captured) and the backward DAG of `graph`: the
 * nodes it names and their partners across, a backward node's `forward_node` and a forward node's
 * backward nodes. Indexed once per graph, so a hover on a 2,000-node graph costs a few lookups.
 */
export function dagIds(graph, ident) {
  if (!graph || !ident || ident.graph !== graph.id) return { forward: [], backward: [] };
  const index = dagIndexOf(graph);
  if ((ident.side || "forward") === "backward") {
    const forward = ident.ids.map((id) => index.backward.get(id)?.forward_node).filter(Boolean);
    return { forward: [...new Set(forward)], backward: ident.ids };
  }
  const forward = idsAt(graph, ident, 0);
  return { forward, backward: forward.flatMap((id) => index.partners.get(id) || []) };
}

/** The identity of a source line in a graph: its forward nodes (else its backward ones), or null. */
export function lineIdent(graph, line) {
  if (!graph || !line) return null;
  // a captured graph's "output" is its return, not a computation; a dynamic graph's is the tensor
  // backward() was called on, a computation of its line like any other
  const onLine = (nodes) => nodes.filter((n) => n.line === line && (n.kind !== "output" || graph.kind !== "static")).map((n) => n.id);
  const forward = onLine(nodesAt(graph, 0));
  if (forward.length) return { graph: graph.id, side: "forward", stage: 0, ids: forward, line };
  const backward = onLine(graph.backward?.nodes || []);
  return backward.length ? { graph: graph.id, side: "backward", stage: 0, ids: backward, line } : null;
}
