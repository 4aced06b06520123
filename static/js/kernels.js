// The Kernels tab: each generated kernel's source (highlighted); hovering one lights its nodes
// in the captured graph and its lines in the editor; eager vs compiled time as a bar chart.
import { GraphView } from "./graphview.js";
import { t } from "./i18n.js";
import { esc } from "./tensorview.js";

const C_TOKENS = /(\/\*[\s\S]*?\*\/|\/\/[^\n]*)|("(?:\\.|[^"\\])*")|\b(for|if|else|return|while|void|const|static|inline|include|define)\b|\b(float|double|int|int64_t|int32_t|uint8_t|size_t|char|bool)\b|\b(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?f?)\b|(#\w+)/g;

/** C source -> HTML with token classes (comments, strings, keywords, types, numbers). */
export function highlightC(src) {
  let out = "", last = 0;
  for (const m of src.matchAll(C_TOKENS)) {
    out += esc(src.slice(last, m.index));
    const cls = m[1] ? "com" : m[2] ? "str" : m[3] ? "kw" : m[4] ? "ty" : m[5] ? "num" : "pre";
    out += `<span class="tok-${cls}">${esc(m[0])}</span>`;
    last = m.index + m[0].length;
  }
  return out + esc(src.slice(last));
}

function barChart(timings) {
  const rows = [["eager_ms", "kernels.eager"], ["compiled_ms", "kernels.compiled"]].filter(([k]) => typeof timings[k] === "number");
  if (!rows.length) return "";
  const max = Math.max(...rows.map(([k]) => timings[k]));
  const W = 260, H = 28;
  const bars = rows.map(([k, label], i) => {
    const w = Math.max(2, (timings[k] / max) * W);
    return `<g transform="translate(0 ${i * (H + 10)})"><text x="0" y="${H / 2 + 5}" class="bar-label">${esc(t(label))}</text>
      <rect x="110" y="0" width="${w}" height="${H}" rx="4" class="bar bar-${k}"></rect>
      <text x="${118 + w}" y="${H / 2 + 5}" class="bar-value">${timings[k].toFixed(2)} ms</text></g>`;
  }).join("");
  const speedup = timings.eager_ms && timings.compiled_ms ? `<div class="speedup">${t("kernels.speedup", { x: (timings.eager_ms / timings.compiled_ms).toFixed(1) })}</div>` : "";
  const compile = typeof timings.compile_ms === "number" ? `<div class="muted small">${t("kernels.compile_time", { ms: timings.compile_ms.toFixed(0) })}</div>` : "";
  return `<svg class="bars" viewBox="0 0 ${W + 200} ${rows.length * (H + 10)}" role="img">${bars}</svg>${speedup}${compile}`;
}

export class KernelsPanel {
  constructor(el, { onHoverLines, onNode }) {
    this.el = el;
    this.onHoverLines = onHoverLines;
    this.onNode = onNode;
  }

  async show(graph) {
    const kernels = graph?.kernels || [];
    if (!kernels.length) {
      this.el.innerHTML = `<div class="empty-state"><h3>${t("kernels.none_title")}</h3><p>${t("kernels.none")}</p></div>`;
      this.view = null;
      this.views = {};
      return;
    }
    this.graph = graph;
    const timings = graph.timings || {};
    this.el.innerHTML = `<div class="kernels">
      <div class="kernel-list">${kernels.map((k, i) => `
        <article class="kernel card" data-i="${i}" tabindex="0">
          <div class="card-title"><code>${esc(k.name)}</code> <span class="badge">${esc(k.language || "c")}</span>
            <span class="muted small">${t("kernels.nodes", { n: (k.nodes || []).length })}</span>
            ${typeof k.compile_ms === "number" ? `<span class="badge">${k.cache_hit ? t("kernels.cached") : t("kernels.compiled_in", { ms: k.compile_ms.toFixed(0) })}</span>` : ""}</div>
          <pre class="code">${highlightC(k.source || "")}</pre>
        </article>`).join("")}</div>
      <div class="kernel-side">
        <h4>${t("kernels.timing")}</h4>${barChart(timings) || `<div class="muted">${t("kernels.no_timings")}</div>`}
        ${timings.note ? `<div class="muted small">${esc(timings.note)}</div>` : ""}
        <h4>${t("kernels.graph")}</h4><div class="graphview kernel-graph" data-side="forward"></div>
        ${this.hasBackward(graph) ? `<h4>${t("kernels.backward_graph")}</h4><div class="graphview kernel-graph" data-side="backward"></div>` : ""}
      </div></div>`;
    // a compiled training step has kernels for both graphs: each kernel names its graph
    this.views = {};
    this.el.querySelectorAll(".kernel-graph").forEach((el) => {
      const side = el.dataset.side;
      this.views[side] = new GraphView(el, { onSelect: (id) => this.fromNode(id, side), compact: true });
    });
    this.view = this.views.forward;
    this.el.querySelectorAll(".kernel").forEach((card) => {
      const k = kernels[Number(card.dataset.i)];
      const on = () => this.light(k, card);
      card.addEventListener("mouseenter", on);
      card.addEventListener("focus", on);
      card.addEventListener("mouseleave", () => this.light(null));
    });
    await Promise.all(Object.entries(this.views).map(([side, v]) => v.show(graph[side])));
  }

  hasBackward(graph) { return !!graph.backward && graph.kernels.some((k) => k.graph === "backward"); }

  /** Light one kernel's nodes and source lines (null clears). */
  light(kernel, card = null) {
    this.el.querySelectorAll(".kernel.lit").forEach((c) => c.classList.remove("lit"));
    card?.classList.add("lit");
    const ids = kernel?.nodes || [];
    const side = kernel?.graph === "backward" && this.views.backward ? "backward" : "forward";
    for (const [s, v] of Object.entries(this.views || {})) v.setClass("hover", s === side ? ids : []);
    const byId = new Map((this.graph?.[side]?.nodes || []).map((n) => [n.id, n]));
    this.onHoverLines?.(ids.map((id) => byId.get(id)?.line).filter(Boolean));
  }

  /** Clicking a node in a graph finds the kernel that computes it. */
  fromNode(id, side = "forward") {
    const i = (this.graph?.kernels || []).findIndex((k) => (k.graph || "forward") === side && (k.nodes || []).includes(id));
    if (i < 0) { this.light(null); return; }
    const card = this.el.querySelector(`.kernel[data-i="${i}"]`);
    this.light(this.graph.kernels[i], card);
    card.scrollIntoView({ block: "nearest" });
    this.onNode?.(this.graph[side].nodes.find((n) => n.id === id) || null);
  }

  currentView() { return this.view; }
}
