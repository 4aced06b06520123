// The Kernels tab: each generated kernel's source (highlighted); pointing at a kernel or at one of
// its lines makes that kernel's nodes (or that line's node) the page's identity (identity.js), lit
// in the graph beside it, in every tab and in the editor; eager vs compiled time as a bar chart.
import { GraphView } from "./graphview.js";
import { html, show, svg } from "./dom.js";
import { t } from "./i18n.js";
import * as identity from "./identity.js";

const C_TOKENS = /(\/\*[\s\S]*?\*\/|\/\/[^\n]*)|("(?:\\.|[^"\\])*")|\b(for|if|else|return|while|void|const|static|inline|include|define)\b|\b(float|double|int|int64_t|int32_t|uint8_t|size_t|char|bool)\b|\b(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?f?)\b|(#\w+)/g;

/** C source as lines, each a list of text and token spans (comments, strings, keywords, types,
 * numbers). A token spanning lines is closed and reopened at each line break. */
function highlightLines(src) {
  const lines = [[]];
  const add = (text, cls) => text.split("\n").forEach((part, i) => {
    if (i) lines.push([]);
    if (part) lines[lines.length - 1].push(cls ? html`<span class="tok-${cls}">${part}</span>` : part);
  });
  let last = 0;
  for (const m of src.matchAll(C_TOKENS)) {
    add(src.slice(last, m.index), null);
    add(m[0], m[1] ? "com" : m[2] ? "str" : m[3] ? "kw" : m[4] ? "ty" : m[5] ? "num" : "pre");
    last = m.index + m[0].length;
  }
  add(src.slice(last), null);
  return lines;
}

/** C source with token classes, as a DocumentFragment. */
export function highlightC(src) {
  return html`${highlightLines(src).map((line, i) => [i ? "\n" : "", line])}`;
}

/** A kernel's source as one span per line; a line that computes a node names it (data-node). */
export function kernelSourceHTML(src) {
  const nodes = identity.kernelLineNodes(src);
  return highlightLines(src || "").map((line, i) => {
    const at = nodes[i];
    return html`${i ? "\n" : ""}<span class="kl" data-node="${at ? at.node : null}" data-line="${at?.line || null}">${line}</span>`;
  });
}

function barChart(timings) {
  const rows = [["eager_ms", "kernels.eager"], ["compiled_ms", "kernels.compiled"]].filter(([k]) => typeof timings[k] === "number");
  if (!rows.length) return "";
  const max = Math.max(...rows.map(([k]) => timings[k]));
  const W = 260, H = 28;
  const bars = rows.map(([k, label], i) => {
    const w = Math.max(2, (timings[k] / max) * W);
    return svg`<g transform="translate(0 ${i * (H + 10)})"><text x="0" y="${H / 2 + 5}" class="bar-label">${t(label)}</text>
      <rect x="110" y="0" width="${w}" height="${H}" rx="4" class="bar bar-${k}"></rect>
      <text x="${118 + w}" y="${H / 2 + 5}" class="bar-value">${timings[k].toFixed(2)} ms</text></g>`;
  });
  const speedup = timings.eager_ms && timings.compiled_ms ? html`<div class="speedup">${t("kernels.speedup", { x: (timings.eager_ms / timings.compiled_ms).toFixed(1) })}</div>` : "";
  const compile = typeof timings.compile_ms === "number" ? html`<div class="muted small">${t("kernels.compile_time", { ms: timings.compile_ms.toFixed(0) })}</div>` : "";
  return html`<svg class="bars" viewBox="0 0 ${W + 200} ${rows.length * (H + 10)}" role="img">${bars}</svg>${speedup}${compile}`;
}

export class KernelsPanel {
  constructor(el) {
    this.el = el;
    identity.subscribe((ident) => this.applyIdentity(ident));
  }

  async show(graph) {
    const kernels = graph?.kernels || [];
    if (!kernels.length) {
      show(this.el, html`<div class="empty-state"><h3>${t("kernels.none_title")}</h3><p>${t("kernels.none")}</p></div>`);
      this.view = null;
      this.views = {};
      this.kernels = null;
      return;
    }
    this.graph = graph;
    this.kernels = kernels;
    const timings = graph.timings || {};
    show(this.el, html`<div class="kernels">
      <div class="kernel-list">${kernels.map((k, i) => html`
        <article class="kernel card" data-i="${i}" tabindex="0">
          <div class="card-title"><code>${k.name}</code> <span class="badge">${k.language || "c"}</span>
            <span class="muted small">${t("kernels.nodes", { n: (k.nodes || []).length })}</span>
            ${typeof k.compile_ms === "number" ? html`<span class="badge">${k.cache_hit ? t("kernels.cached") : t("kernels.compiled_in", { ms: k.compile_ms.toFixed(0) })}</span>` : ""}</div>
          <pre class="code">${kernelSourceHTML(k.source || "")}</pre>
        </article>`)}</div>
      <div class="kernel-side">
        <p class="muted small">${t("kernels.identity_hint")}</p>
        <h4>${t("kernels.timing")}</h4>${barChart(timings) || html`<div class="muted">${t("kernels.no_timings")}</div>`}
        ${timings.note ? html`<div class="muted small">${timings.note}</div>` : ""}
        <h4>${t("kernels.graph")}</h4><div class="graphview kernel-graph" data-side="forward"></div>
        ${this.hasBackward(graph) ? html`<h4>${t("kernels.backward_graph")}</h4><div class="graphview kernel-graph" data-side="backward"></div>` : ""}
      </div></div>`);
    // a compiled training step has kernels for both graphs: each kernel names its graph
    this.views = {};
    this.el.querySelectorAll(".kernel-graph").forEach((el) => {
      const side = el.dataset.side;
      this.views[side] = new GraphView(el, { onSelect: (id) => this.fromNode(id, side), compact: true });
    });
    this.view = this.views.forward;
    this.el.querySelectorAll(".kernel").forEach((card) => {
      const i = Number(card.dataset.i);
      const pointed = (e) => this.identityAt(i, e.target);
      card.addEventListener("mouseover", (e) => identity.hover(pointed(e)));
      card.addEventListener("focus", () => identity.hover(this.identityAt(i, null)));
      card.addEventListener("mouseleave", () => identity.hover(null));
      card.addEventListener("blur", () => identity.hover(null));
      card.addEventListener("click", (e) => identity.pick(pointed(e)));
    });
    this.cardNodes = kernels.map((k) => new Set(k.nodes || []));
    await Promise.all(Object.entries(this.views).map(([side, v]) => v.show(graph[side])));
    this.applyIdentity(identity.current(), { scroll: true });
  }

  hasBackward(graph) { return !!graph.backward && graph.kernels.some((k) => k.graph === "backward"); }

  /** The identity of what the pointer is on in kernel `i`: the node of a source line that
   * computes one, else the whole kernel's nodes. Kernel ids are those after the last pass. */
  identityAt(i, target) {
    const k = this.kernels[i];
    const side = k.graph === "backward" && this.views.backward ? "backward" : "forward";
    const stage = side === "forward" ? identity.finalStage(this.graph) : 0;
    const line = target?.closest?.(".kl[data-node]");
    if (line) {
      return { graph: this.graph.id, side, stage, ids: [line.dataset.node], line: Number(line.dataset.line) || null };
    }
    return { graph: this.graph.id, side, stage, ids: [...(k.nodes || [])] };
  }

  /** Light what stands for `ident` here: its nodes in the graphs, the kernels computing them and
   * their source lines. Classes only: nothing is redrawn. */
  applyIdentity(ident, { scroll = false } = {}) {
    if (!this.graph || !this.kernels) return;
    const g = this.graph;
    for (const [side, v] of Object.entries(this.views || {})) v.setClass("ident", identity.idsAt(g, ident, 0, side));
    const finals = {
      forward: new Set(identity.idsAt(g, ident, identity.finalStage(g), "forward")),
      backward: new Set(identity.idsAt(g, ident, 0, "backward")),
    };
    let first = null;
    this.el.querySelectorAll(".kernel").forEach((card) => {
      const k = this.kernels[Number(card.dataset.i)];
      const ids = finals[k.graph === "backward" && this.views.backward ? "backward" : "forward"];
      const lit = [...this.cardNodes[Number(card.dataset.i)]].some((id) => ids.has(id));
      card.classList.toggle("lit", lit);
      if (lit && !first) first = card;
      card.querySelectorAll(".kl[data-node]").forEach((l) => l.classList.toggle("ident", lit && ids.has(l.dataset.node)));
    });
    if (scroll && first) first.scrollIntoView({ block: "nearest" });
  }

  /** Clicking a node in a graph picks it: its kernel and lines light up, here and everywhere. */
  fromNode(id, side = "forward") {
    identity.pick(id ? { graph: this.graph.id, side, stage: 0, ids: [id] } : null);
  }

  currentView() { return this.view; }
}
