// What changed between two runs (the Compare tab): their graphs' nodes matched by what they are —
// module path and op (a leaf, input or constant by its name) — not by id, which a run numbers
// afresh; and their printed outputs line by line, numbers diffed. Pure: no DOM (tests: JS units).

/** A node's identity across runs: its module path and op; a leaf, input or constant its name. */
export function nodeKey(n) {
  if (["param", "input", "const", "leaf"].includes(n.kind) || n.op === "param" || n.op === "placeholder") {
    return `${n.kind || n.op}:${n.name || n.label || ""}`;
  }
  return `${n.module ?? ""}/${n.op}`;
}

const REL = 1e-6;
const differs = (a, b) => Math.abs(a - b) > REL * Math.max(1, Math.abs(a), Math.abs(b));
const sameShape = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const meanOf = (n) => (typeof n.value?.stats?.mean === "number" ? n.value.stats.mean
  : typeof n.value?.data === "number" ? n.value.data : null);

/**
 * Match two graphs' nodes ({nodes}: the record's forward DAGs). Nodes of one key are paired in
 * their order in each graph (the k-th `fc1/addmm` of one with the k-th of the other). Returns
 * {pairs: [[prevId, curId]], removed: [prevId], added: [curId], changed: [{prev, cur, why}]}, a
 * pair changed when its shape or dtype differs ("shape") or its value's mean does ("value").
 */
export function diffGraphs(prev, cur) {
  const byKey = new Map();
  for (const n of prev?.nodes || []) {
    const k = nodeKey(n);
    if (!byKey.has(k)) byKey.set(k, []);
    byKey.get(k).push(n);
  }
  const pairs = [], added = [], changed = [];
  for (const n of cur?.nodes || []) {
    const twin = byKey.get(nodeKey(n))?.shift();
    if (!twin) { added.push(n.id); continue; }
    pairs.push([twin.id, n.id]);
    const [a, b] = [meanOf(twin), meanOf(n)];
    const why = !sameShape(twin.shape, n.shape) || (twin.dtype ?? null) !== (n.dtype ?? null) ? "shape"
      : a !== null && b !== null && differs(a, b) ? "value" : null;
    if (why) changed.push({ prev: twin.id, cur: n.id, why });
  }
  const removed = [...byKey.values()].flat().map((n) => n.id);
  return { pairs, removed, added, changed };
}

const NUMBER = /(?<![\w.])(?:[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)(?![\w])/g;
/** A printed line without its numbers: lines that differ only in their numbers match. */
export const skeleton = (line) => line.replace(NUMBER, "#");
const numbers = (line) => (line.match(NUMBER) || []).map((s) => (s === "inf" ? Infinity : Number(s)));

/**
 * The printed outputs line by line (longest common subsequence of the lines' skeletons): each row
 * {op: " " same, "~" numbers changed, "-" only before, "+" only now, text (now's, or before's for
 * "-"), was (before's text for "~"), numbers: [{was, now, delta}] of the numbers that changed}.
 */
export function diffOutputs(before, now, maxLines = 2000) {
  const x = String(before ?? "").split("\n"), y = String(now ?? "").split("\n");
  if (x.at(-1) === "") x.pop();
  if (y.at(-1) === "") y.pop();
  if (x.length > maxLines || y.length > maxLines) {
    return [...x.map((text) => ({ op: "-", text })), ...y.map((text) => ({ op: "+", text }))];
  }
  const kx = x.map(skeleton), ky = y.map(skeleton);
  const n = x.length, m = y.length;
  const L = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) L[i][j] = kx[i] === ky[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  }
  const rows = [];
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && kx[i] === ky[j]) {
      if (x[i] === y[j]) rows.push({ op: " ", text: y[j] });
      else {
        const [a, b] = [numbers(x[i]), numbers(y[j])];
        const changedNumbers = a.map((was, k) => ({ was, now: b[k], delta: b[k] - was }))
          .filter((d) => !(Object.is(d.was, d.now) || d.was === d.now));
        rows.push({ op: "~", text: y[j], was: x[i], numbers: changedNumbers });
      }
      i++; j++;
    } else if (j >= m || (i < n && L[i + 1][j] >= L[i][j + 1])) rows.push({ op: "-", text: x[i++] });
    else rows.push({ op: "+", text: y[j++] });
  }
  return rows;
}
