// The Passes tab: the pipeline as a list; each pass as before/after graphs with removed, added
// and changed nodes coloured, the IR text diff, a reason per rewrite, and statistics.
import { GraphView } from "./graphview.js";
import { t } from "./i18n.js";
import { diffHTML } from "./irdiff.js";
import { passGraph, passIR } from "./passgraphs.js";
import { esc } from "./tensorview.js";

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
  constructor(el, { onChange, onNode, onOpenMemory }) {
    this.onOpenMemory = onOpenMemory;
    this.el = el;
    this.onChange = onChange;
    this.onNode = onNode;
    this.hideUnchanged = true;
    this.graph = null;
    this.index = 0;
  }

  /** The passes of a graph; index selects one (clamped). Resolves when both drawings are done. */
  async show(graph, index = null) {
    this.graph = graph;
    this.picked = null;
    const passes = graph?.passes || [];
    if (!passes.length) {
      this.el.innerHTML = `<div class="empty-state"><h3>${t("passes.none_title")}</h3><p>${t("passes.none")}</p></div>`;
      this.views = null;
      return;
    }
    this.el.innerHTML = `<div class="passes">
      <div class="pass-list">
        <label class="check"><input type="checkbox" class="hide-unchanged" ${this.hideUnchanged ? "checked" : ""}> ${t("passes.hide_unchanged")}</label>
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
      </div></div>`;
    const select = (id, view) => {
      this.picked = id ? { id, side: view === this.views.before ? "before" : "after", index: this.index } : null;
      this.lightPicked();
      this.onNode?.(view.graph?.nodes.find((n) => n.id === id) || null);
    };
    this.views = { before: new GraphView(this.el.querySelector(".pass-before"), { onSelect: select, compact: true }),
                   after: new GraphView(this.el.querySelector(".pass-after"), { onSelect: select, compact: true }) };
    this.el.querySelector(".hide-unchanged").onchange = (e) => { this.hideUnchanged = e.target.checked; this.renderList(); };
    // open on the first pass that visibly rewrote the graph (the interesting one), else the last
    const rewrote = passes.findIndex((p) => p.added?.length || p.removed?.length || p.changed?.length);
    const start = index ?? (rewrote >= 0 ? rewrote : passes.length - 1);
    return this.select(start, { silent: true });
  }

  /**
   * One identity across the two drawings: the picked node, in the other drawing the node that
   * stands for it after this pass (CSE, x*1 -> x: the snapshot's `replaced`) or the nodes it
   * stands for, and in each drawing the rest of its fusion group. Kept while moving through passes.
   */
  lightPicked() {
    const { before, after } = this.views;
    const passes = this.graph.passes;
    const replaced = passes[this.index]?.replaced || {};
    let { id = null, side = "after", index = this.index } = this.picked || {};
    // picked on an earlier pass: follow what stood for it through the passes in between
    for (let k = index + (side === "after" ? 1 : 0); id && k < this.index; k++) id = passes[k].replaced?.[id] ?? id;
    if (index < this.index) side = "before";
    const [here, there] = side === "before" ? [before, after] : [after, before];
    const partners = !id ? [] : side === "before" ? [replaced[id] ?? id]
      : [id, ...Object.keys(replaced).filter((k) => replaced[k] === id)];
    const groupOf = (view, nid) => {
      const nodes = view.graph?.nodes || [];
      const group = nodes.find((n) => n.id === nid)?.group;
      return group ? nodes.filter((n) => n.group === group && n.id !== nid).map((n) => n.id) : [];
    };
    here.setClass("sel", id ? [id] : []);
    here.setClass("linked", id ? groupOf(here, id) : []);
    there.setClass("sel", []);
    there.setClass("linked", [...partners, ...partners.flatMap((p) => groupOf(there, p))]);
  }

  /** Indices of the passes shown in the list. */
  visible() {
    const all = this.graph.passes.map((p, i) => i);
    return this.hideUnchanged ? all.filter((i) => !changedNothing(this.graph.passes[i]) || i === this.index) : all;
  }

  renderList() {
    const ol = this.el.querySelector(".pass-list ol");
    ol.innerHTML = this.graph.passes.map((p, i) => {
      if (this.hideUnchanged && changedNothing(p) && i !== this.index) return "";
      const badges = changedNothing(p) ? `<span class="muted small">${t("passes.unchanged")}</span>`
        : `${p.removed?.length ? `<span class="badge removed">−${p.removed.length}</span>` : ""}${p.added?.length ? `<span class="badge added">+${p.added.length}</span>` : ""}${p.changed?.length ? `<span class="badge changed">~${p.changed.length}</span>` : ""}`;
      return `<li><button class="pass-item ${i === this.index ? "active" : ""}" data-i="${i}"><span>${i + 1}. ${esc(p.name)}</span> ${badges}</button></li>`;
    }).join("");
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
    const stat = (k, f = (x) => x ?? "—") => `<div class="stat"><span>${t(`passes.stat_${k}`)}</span><b>${f(sb[k])} → ${f(sa[k])}</b></div>`;
    this.el.querySelector(".pass-head").innerHTML = `<h3>${esc(p.name)}</h3>
      <div class="stats-row">${stat("nodes")}${stat("kernels")}${stat("peak_bytes", fmtBytes)}</div>`;
    const notes = (p.notes || []).map((n) => (typeof n === "string" ? { reason: n } : n));
    this.el.querySelector(".pass-notes").innerHTML = notes.length
      ? `<h4>${t("passes.notes")}</h4><ul class="notes">${notes.map((n) => `<li>${n.node ? `<code>${esc(n.node)}</code> ` : ""}${esc(n.reason || n.message || "")}</li>`).join("")}</ul>`
      : (changedNothing(p) ? `<div class="muted">${t("passes.nothing_changed")}</div>` : "");
    if (p.memory) {
      this.el.querySelector(".pass-notes").insertAdjacentHTML("beforeend", `<p>${t("passes.memory_note")} <button class="open-memory">${t("passes.open_memory")}</button></p>`);
      this.el.querySelector(".open-memory").onclick = () => this.onOpenMemory?.();
    }
    this.el.querySelector(".pass-diff").innerHTML = diffHTML(beforeIR, passIR(passes, this.index));
    const { before, after } = this.views;
    before.setClass("removed", p.removed);
    before.setClass("changed", p.changed);
    after.setClass("added", p.added);
    after.setClass("changed", p.changed);
    if (!silent) this.onChange?.(this.index);
    await Promise.all([before.show(beforeGraph || { nodes: [], edges: [] }), after.show(passGraph(passes, this.index) || { nodes: [], edges: [] })]);
    this.lightPicked();       // groups are known once both graphs are shown
  }

  /** The drawing an export takes from this tab. */
  currentView() { return this.views?.after || null; }
}
