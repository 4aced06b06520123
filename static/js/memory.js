// The Memory tab: buffer lifetimes along the schedule (one bar per value, buffers that share
// memory coloured alike) and the peak bytes before and after planning.
import { html, show, svg } from "./dom.js";
import { t } from "./i18n.js";
import * as identity from "./identity.js";
import { fmtBytes } from "./passes.js";

// the node that writes a value ("%25.1" is the second result of node %25)
const nodeOfValue = (v) => String(v ?? "").replace(/\.\d+$/, "");

const PALETTE = ["#4f46e5", "#0891b2", "#d97706", "#db2777", "#16a34a", "#7c3aed", "#dc2626", "#0d9488", "#ca8a04", "#2563eb"];

/** The memory plan of a graph: the memory_planning pass's snapshot, wherever the engine put it. */
export function memoryPlan(graph) {
  for (const p of [...(graph?.passes || [])].reverse()) {
    for (const cand of [p.memory, p.plan, p.stats?.memory, p]) {
      if (cand && Array.isArray(cand.intervals)) return { pass: p, plan: cand };
    }
  }
  return null;
}

function lifetimes(plan, graph) {
  const byId = new Map((graph?.forward?.nodes || []).map((n) => [n.id, n]));
  const label = (iv) => {
    const id = iv.node ?? iv.value;
    const n = byId.get(id);
    return n ? `${id} ${n.name || n.op}` : String(iv.value ?? id ?? "");
  };
  const intervals = plan.intervals;
  const buffers = [...new Set(intervals.map((iv) => iv.buffer))];
  const colour = new Map(buffers.map((b, i) => [b, PALETTE[i % PALETTE.length]]));
  const rows = [...intervals].sort((a, b) => String(a.buffer).localeCompare(String(b.buffer), undefined, { numeric: true }) || a.start - b.start);
  const end = Math.max(...intervals.map((iv) => iv.end)) + 1;
  const start = Math.min(...intervals.map((iv) => iv.start));
  const L = 150, W = 520, RH = 26;
  const x = (s) => L + ((s - start) / (end - start)) * W;
  const ticks = Array.from({ length: end - start + 1 }, (_, i) => start + i)
    .filter((s, i, a) => a.length <= 25 || i % Math.ceil(a.length / 25) === 0);
  const sched = plan.schedule || [];
  // columns are schedule steps, numbered; the list under the chart names each step's kernel
  const grid = ticks.map((s) => svg`<line x1="${x(s)}" x2="${x(s)}" y1="0" y2="${rows.length * RH}" class="grid"/>${
    s < end ? svg`<text x="${(x(s) + x(s + 1)) / 2}" y="${rows.length * RH + 16}" class="tick">${s}</text>` : ""}`);
  const schedule = sched.length ? html`<div class="schedule"><h4>${t("memory.schedule")}</h4><ol start="0">${sched.map((k) => html`<li data-group="${k}"><code>${k}</code></li>`)}</ol></div>` : "";
  const bars = rows.map((iv, i) => svg`<g class="life" data-buffer="${iv.buffer}" data-node="${nodeOfValue(iv.value)}">
      <text x="${L - 8}" y="${i * RH + RH / 2 + 4}" class="life-label">${label(iv)}</text>
      <rect x="${x(iv.start)}" y="${i * RH + 4}" width="${Math.max(4, x(iv.end + 1) - x(iv.start))}" height="${RH - 8}" rx="4" fill="${colour.get(iv.buffer)}"><title>${iv.buffer} · ${fmtBytes(iv.bytes)}</title></rect>
      <text x="${x(iv.start) + 6}" y="${i * RH + RH / 2 + 4}" class="life-buf">${iv.buffer}</text></g>`);
  const legend = buffers.map((b, i) => html`${i ? " " : ""}<span class="buf-key"><span class="sw" style="background:${colour.get(b)}"></span>${b}</span>`);
  return html`<svg class="lifetimes" viewBox="0 0 ${L + W + 20} ${rows.length * RH + 24}" role="img" aria-label="${t("memory.chart")}">${grid}${bars}</svg>
    <div class="legend">${t("memory.legend")} ${legend}</div>${schedule}
    <table class="buffers"><tr><th>${t("memory.buffer")}</th><th>${t("memory.bytes")}</th><th>${t("memory.values")}</th></tr>
      ${(plan.buffers || []).map((b) => html`<tr><td><span class="sw" style="background:${colour.get(b.id) || "#ccc"}"></span>${b.id}</td><td>${fmtBytes(b.bytes)}</td><td>${(b.values || []).map((v) => label({ value: v })).join(", ")}</td></tr>`)}</table>`;
}

function peaks(plan) {
  const before = plan.peak_bytes_before, after = plan.peak_bytes_after;
  if (typeof before !== "number" || typeof after !== "number") return "";
  const w = (b) => `${Math.max(2, (b / Math.max(before, after, 1)) * 100)}%`;
  return html`<div class="peaks">
    <div class="peak"><span>${t("memory.before")}</span><div class="peak-bar"><i style="width:${w(before)}" class="before"></i></div><b>${fmtBytes(before)}</b></div>
    <div class="peak"><span>${t("memory.after")}</span><div class="peak-bar"><i style="width:${w(after)}" class="after"></i></div><b>${fmtBytes(after)}</b></div>
    <div class="muted">${t("memory.saved", { pct: before ? Math.round((1 - after / before) * 100) : 0 })}</div></div>`;
}

/** The nodes of each fusion group by name, from the fusion snapshot. */
function groupNodes(graph) {
  const groups = [...(graph?.passes || [])].reverse().find((p) => Array.isArray(p.groups))?.groups || [];
  return new Map(groups.map((grp) => [grp.name, grp.node_ids || []]));
}

export function showMemory(el, graph) {
  const found = memoryPlan(graph);
  if (!found || !found.plan.intervals.length) {
    show(el, html`<div class="empty-state"><h3>${t("memory.none_title")}</h3><p>${t("memory.none")}</p></div>`);
    return;
  }
  show(el, html`<div class="memory"><h3>${t("memory.title")}</h3>${peaks(found.plan)}
    <p class="muted">${t("memory.explain")}</p>${lifetimes(found.plan, graph)}</div>`);
  // a value's bar or a kernel of the schedule is the page's identity while pointed at (ids after
  // the last pass: the plan is made on that graph)
  const stage = identity.finalStage(graph);
  const groups = groupNodes(graph);
  const bind = (node, ids) => {
    const ident = { graph: graph.id, side: "forward", stage, ids };
    node.addEventListener("mouseenter", () => identity.hover(ident));
    node.addEventListener("mouseleave", () => identity.hover(null));
    node.addEventListener("click", () => identity.pick(ident));
  };
  el.querySelectorAll(".life[data-node]").forEach((g) => bind(g, [g.dataset.node]));
  el.querySelectorAll(".schedule li[data-group]").forEach((li) => bind(li, groups.get(li.dataset.group) || []));
  lightMemory(el, graph, identity.current());
}

/** Light the bars of the identity's values and the kernels of the schedule computing them. */
export function lightMemory(el, graph, ident) {
  if (!graph || !el.querySelector(".memory")) return;
  const ids = new Set(identity.idsAt(graph, ident, identity.finalStage(graph)));
  el.querySelectorAll(".life[data-node]").forEach((g) => g.classList.toggle("ident", ids.has(g.dataset.node)));
  const groups = groupNodes(graph);
  el.querySelectorAll(".schedule li[data-group]").forEach((li) =>
    li.classList.toggle("ident", (groups.get(li.dataset.group) || []).some((id) => ids.has(id))));
}
