// The Compare tab: the previous run and this one side by side — the graph shown, with the nodes
// only the previous run had (removed), only this run has (added) and those whose shape or value
// changed coloured (matched by module path and op: rundiff.js), the printed outputs with their
// numbers diffed, and the code's diff.
import { GraphView } from "./graphview.js";
import { html, show } from "./dom.js";
import { t, tMessage } from "./i18n.js";
import { diffHTML } from "./irdiff.js";
import { diffGraphs, diffOutputs } from "./rundiff.js";
import { fmt } from "./tensorview.js";

/** The graph of `record` that stands for `graph` of another run: same title, else same place, else the first with a forward. */
export function counterpart(record, graph, from) {
  const gs = (record?.graphs || []).filter((g) => g.forward);
  if (!graph) return gs[0] || null;
  return gs.find((g) => g.title === graph.title) || (record?.graphs || [])[(from?.graphs || []).indexOf(graph)]
    || gs[0] || null;
}

const signed = (d) => (d > 0 ? `+${fmt(d)}` : fmt(d));

function outputRows(rows) {
  if (!rows.length) return html`<div class="muted small">${t("compare.no_output")}</div>`;
  const cls = { " ": "same", "-": "del", "+": "ins", "~": "chg" };
  return html`<pre class="ir-diff out-diff">${rows.map((r) => html`<div class="${cls[r.op]}"><span class="sign">${r.op}</span>${r.text}${r.op === "~"
    ? html`<span class="num-diff">${r.numbers.map((d) => html` <span class="num">${fmt(d.was)} → ${fmt(d.now)} <b>(${Number.isFinite(d.delta) ? signed(d.delta) : "—"})</b></span>`)}</span>` : ""}</div>`)}</pre>`;
}

export class ComparePanel {
  constructor(el) {
    this.el = el;
    this.views = null;
  }

  /** previous, current: {record, code}; graph: the graph this run shows (the page's pick). */
  async show(previous, current, graph) {
    if (!previous?.record || !current?.record) {
      // a run too large to keep across a reload (keptrun.js) is said as such
      const why = previous?.tooLarge ? t("compare.lost_too_large") : t("compare.none");
      show(this.el, html`<div class="empty-state"><h3>${t("compare.none_title")}</h3><p>${why}</p></div>`);
      this.views = null;
      return;
    }
    const now = graph?.forward ? graph : counterpart(current.record, null);
    const before = counterpart(previous.record, now, current.record);
    const diff = diffGraphs(before?.forward, now?.forward);
    this.diff = diff;
    const out = diffOutputs(previous.record.stdout, current.record.stdout);
    const numbersChanged = out.filter((r) => r.op === "~").reduce((s, r) => s + r.numbers.length, 0);
    const title = (g) => (g ? tMessage(g.title_message, g.title || g.id) : "—");
    show(this.el, html`<div class="compare">
      <div class="compare-head">
        <h3>${t("compare.title")}</h3>
        <span class="badge removed">−${diff.removed.length} ${t("passes.removed")}</span>
        <span class="badge added">+${diff.added.length} ${t("passes.added")}</span>
        <span class="badge changed">~${diff.changed.length} ${t("passes.changed")}</span>
        <span class="muted small">${t("compare.matched", { n: diff.pairs.length })}</span>
      </div>
      <div class="pass-graphs compare-graphs">
        <div><h4>${t(previous.reloaded ? "compare.previous_reloaded" : "compare.previous")} <span class="muted small">${title(before)}</span></h4><div class="graphview compare-before"></div></div>
        <div><h4>${t("compare.current")} <span class="muted small">${title(now)}</span></h4><div class="graphview compare-after"></div></div>
      </div>
      <div class="legend"><span><span class="sw removed"></span>${t("compare.removed_legend")}</span>
        <span><span class="sw added"></span>${t("compare.added_legend")}</span>
        <span><span class="sw changed"></span>${t("compare.changed_legend")}</span></div>
      <h4>${t("compare.output")} ${numbersChanged ? html`<span class="badge changed">${t(numbersChanged === 1 ? "compare.numbers_changed_one" : "compare.numbers_changed", { n: numbersChanged })}</span>` : ""}</h4>
      ${outputRows(out)}
      <details class="compare-code"><summary>${t("compare.code")}</summary>${diffHTML(previous.code || "", current.code || "")}</details>
    </div>`);
    // a node picked in either drawing lights its match in the other
    const partner = (id, fromBefore) => diff.pairs.find((p) => p[fromBefore ? 0 : 1] === id)?.[fromBefore ? 1 : 0];
    const pick = (fromBefore) => (id) => {
      this.views.before.setClass("sel", id ? [fromBefore ? id : partner(id, false)] : []);
      this.views.after.setClass("sel", id ? [fromBefore ? partner(id, true) : id] : []);
    };
    this.views = { before: new GraphView(this.el.querySelector(".compare-before"), { onSelect: pick(true), compact: true }),
                   after: new GraphView(this.el.querySelector(".compare-after"), { onSelect: pick(false), compact: true }) };
    const draw = async (view, g, marks) => {
      if (!g?.forward) { view.showMessage(html`<div class="empty-state">${t("compare.no_graph")}</div>`); return; }
      await view.show(g.forward);
      for (const [cls, ids] of Object.entries(marks)) view.setClass(cls, ids);
    };
    await Promise.all([
      draw(this.views.before, before, { removed: diff.removed, changed: diff.changed.map((c) => c.prev) }),
      draw(this.views.after, now, { added: diff.added, changed: diff.changed.map((c) => c.cur) }),
    ]);
  }
}
