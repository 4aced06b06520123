// The Passes tab: the pipeline as a list; each pass as before/after graphs with removed, added
// and changed nodes coloured, the IR text diff, a reason per rewrite, and statistics.
import { GraphView } from "./graphview.js";
import { t, tMessage } from "./i18n.js";
import * as identity from "./identity.js";
import { diffHTML } from "./irdiff.js";
import { passGraph, passIR } from "./passgraphs.js";
import { html, show } from "./dom.js";

// the engine says so in `changed_anything` (memory planning changes no node, yet plans buffers)
const changedNothing = (p) => (typeof p.changed_anything === "boolean" ? !p.changed_anything
  : !(p.added?.length || p.removed?.length || p.changed?.length));

export function fmtBytes(b) {
  if (b === null || b === undefined) return "—";
  const u = ["B", "KB", "MB", "GB"];
  let i = 0;
  while (b >= 1024 && i < u.length - 1) { b /= 1024; i++; }
  return `${b.toFixed(b < 10 && i ? 1 : 0)} ${u[i]}`;
}

export class PassesPanel {
  constructor(el, { onChange, onOpenMemory }) {
    this.onOpenMemory = onOpenMemory;
    this.el = el;
    this.onChange = onChange;
    this.hideUnchanged = true;
    this.graph = null;
    this.index = 0;
    identity.subscribe(() => this.lightPicked());
  }

  /** The passes of a graph; index selects one (clamped). Resolves when both drawings are done. */
  async show(graph, index = null) {
    this.graph = graph;
    const passes = graph?.passes || [];
    if (!passes.length) {
      show(this.el, html`<div class="empty-state"><h3>${t("passes.none_title")}</h3><p>${t("passes.none")}</p></div>`);
      this.views = null;
      return;
    }
    this.views = null;        // until both drawings exist: an identity change meanwhile has nothing to light
    show(this.el, html`<div class="passes">
      <div class="pass-list">
        <label class="check"><input type="checkbox" class="hide-unchanged" checked="${this.hideUnchanged ? "" : null}"> ${t("passes.hide_unchanged")}</label>
        <ol></ol>
        <div class="muted small">${t("passes.keys")}</div>
      </div>
      <div class="pass-main">
        <div class="pass-head"></div>
        <div class="pass-graphs">
          <div><h4>${t("passes.before")}</h4><div class="graphview pass-before"></div></div>
          <div><h4>${t("passes.after")}</h4><div class="graphview pass-after"></div></div>
        </div>
        <div class="legend"><span><span class="sw removed"></span>${t("passes.removed")}</span> <span><span class="sw added"></span>${t("passes.added")}</span> <span><span class="sw changed"></span>${t("passes.changed")}</span></div>
        <div class="pass-notes"></div>
        <h4>${t("passes.ir_diff")}</h4><div class="pass-diff"></div>
      </div></div>`);
    // a node picked in either drawing is the page's identity, named at that drawing's stage
    const stageOf = (view) => (view === this.views.before ? this.index : this.index + 1);
    const select = (id, view) => identity.pick(id ? { graph: graph.id, side: "forward", stage: stageOf(view), ids: [id] } : null);
    this.views = { before: new GraphView(this.el.querySelector(".pass-before"), { onSelect: select, compact: true }),
                   after: new GraphView(this.el.querySelector(".pass-after"), { onSelect: select, compact: true }) };
    this.el.querySelector(".hide-unchanged").onchange = (e) => { this.hideUnchanged = e.target.checked; this.renderList(); };
    // open on the first pass that visibly rewrote the graph (the interesting one), else the last
    const rewrote = passes.findIndex((p) => p.added?.length || p.removed?.length || p.changed?.length);
    const start = index ?? (rewrote >= 0 ? rewrote : passes.length - 1);
    return this.select(start, { silent: true });
  }

  /**
   * The page's identity in both drawings: in each, the nodes that stand for it at that stage
   * (followed through the snapshots' `replaced`, so a CSE'd node is its survivor after the pass)
   * and, once fusion has run, the rest of their fusion group. Kept while moving through passes.
   */
  lightPicked() {
    if (!this.views || !this.graph) return;
    const ident = identity.current();
    const draw = (view, stage) => {
      const ids = identity.idsAt(this.graph, ident, stage);
      view.setClass("ident", ids);
      view.setClass("ident-group", ids.length ? identity.groupMates(identity.nodesAt(this.graph, stage), ids) : []);
    };
    draw(this.views.before, this.index);
    draw(this.views.after, this.index + 1);
    const at = { [this.index]: new Set(identity.idsAt(this.graph, ident, this.index)),
                 [this.index + 1]: new Set(identity.idsAt(this.graph, ident, this.index + 1)) };
    this.el.querySelectorAll(".notes li[data-node]").forEach((li) => {
      li.classList.toggle("ident", at[this.noteStage(li.dataset.node)].has(li.dataset.node));
    });
  }

  /** The stage a note's node is named at: before this pass when the pass removed it, else after. */
  noteStage(id) { return (this.graph.passes[this.index]?.removed || []).includes(id) ? this.index : this.index + 1; }

  /** Indices of the passes shown in the list. */
  visible() {
    const all = this.graph.passes.map((p, i) => i);
    return this.hideUnchanged ? all.filter((i) => !changedNothing(this.graph.passes[i]) || i === this.index) : all;
  }

  renderList() {
    const ol = this.el.querySelector(".pass-list ol");
    show(ol, this.graph.passes.map((p, i) => {
      if (this.hideUnchanged && changedNothing(p) && i !== this.index) return "";
      const badges = changedNothing(p) ? html`<span class="muted small">${t("passes.unchanged")}</span>`
        : html`${p.removed?.length ? html`<span class="badge removed">−${p.removed.length}</span>` : ""}${p.added?.length ? html`<span class="badge added">+${p.added.length}</span>` : ""}${p.changed?.length ? html`<span class="badge changed">~${p.changed.length}</span>` : ""}`;
      return html`<li><button class="pass-item ${i === this.index ? "active" : ""}" data-i="${i}"><span>${i + 1}. ${p.name}</span> ${badges}</button></li>`;
    }));
    ol.querySelectorAll(".pass-item").forEach((b) => { b.onclick = () => this.select(Number(b.dataset.i)); });
  }

  /** Move through the visible passes with the arrow keys. */
  move(delta) {
    if (!this.graph?.passes?.length) return;
    const vis = this.visible();
    const at = vis.indexOf(this.index);
    const next = vis[Math.max(0, Math.min(vis.length - 1, at + delta))];
    if (next !== undefined) this.select(next);
  }

  async select(i, { silent = false } = {}) {
    const passes = this.graph.passes;
    this.index = Math.max(0, Math.min(passes.length - 1, i));
    const p = passes[this.index];
    const prev = this.index > 0 ? passes[this.index - 1] : null;
    // a snapshot may store its graph and IR as a patch on the one before (passgraphs.js)
    const beforeGraph = prev ? passGraph(passes, this.index - 1) : this.graph.forward;
    const beforeIR = prev ? passIR(passes, this.index - 1) : (this.graph.ir || "");
    this.renderList();
    const sb = prev?.stats || {}, sa = p.stats || {};
    // the first pass has no "before" figures (the record has none for the graph as captured): its after alone
    const stat = (k, f = (x) => x ?? "—") => html`<div class="stat"><span>${t(`passes.stat_${k}`)}</span><b>${
      sb[k] === undefined || sb[k] === null ? f(sa[k]) : `${f(sb[k])} → ${f(sa[k])}`}</b></div>`;
    show(this.el.querySelector(".pass-head"), html`<h3>${p.name}</h3>
      <div class="stats-row">${stat("nodes")}${stat("kernels")}${stat("peak_bytes", fmtBytes)}</div>`);
    const notes = (p.notes || []).map((n) => (typeof n === "string" ? { reason: n } : n));
    show(this.el.querySelector(".pass-notes"), notes.length
      ? html`<h4>${t("passes.notes")}</h4><ul class="notes">${notes.map((n) => html`<li data-node="${n.node || null}">${n.node ? html`<code>${n.node}</code> ` : ""}${tMessage(n, n.reason || n.message || "")}</li>`)}</ul>`
      : (changedNothing(p) ? html`<div class="muted">${t("passes.nothing_changed")}</div>` : ""));
    if (p.memory) {
      this.el.querySelector(".pass-notes").append(html`<p>${t("passes.memory_note")} <button class="open-memory">${t("passes.open_memory")}</button></p>`);
      this.el.querySelector(".open-memory").onclick = () => this.onOpenMemory?.();
    }
    // a note names a node after this pass: pointing at it lights that node everywhere
    const noteIdent = (li) => ({ graph: this.graph.id, side: "forward", stage: this.noteStage(li.dataset.node), ids: [li.dataset.node] });
    this.el.querySelectorAll(".notes li[data-node]").forEach((li) => {
      li.onmouseenter = () => identity.hover(noteIdent(li));
      li.onmouseleave = () => identity.hover(null);
      li.onclick = () => identity.pick(noteIdent(li));
    });
    show(this.el.querySelector(".pass-diff"), diffHTML(beforeIR, passIR(passes, this.index)));
    const { before, after } = this.views;
    before.setClass("removed", p.removed);
    before.setClass("changed", p.changed);
    after.setClass("added", p.added);
    after.setClass("changed", p.changed);
    if (!silent) this.onChange?.(this.index);
    this.lightPicked();       // set before drawing: the views paint their classes into the new drawings
    await Promise.all([before.show(beforeGraph || { nodes: [], edges: [] }), after.show(passGraph(passes, this.index) || { nodes: [], edges: [] })]);
  }

  /** The drawing an export takes from this tab. */
  currentView() { return this.views?.after || null; }
}
