// The Static tab: captured graphs (trace, script, tf.function, session, compile) with their IR,
// warnings marked on their source lines, trace vs script overlaid, and tf.function retraces.
import { GraphView } from "./graphview.js";
import { t } from "./i18n.js";
import { esc } from "./tensorview.js";

/** The source line a warning names ("line 11: ..." or {line}), or null. */
export function warningLine(w) {
  if (w && typeof w === "object") return w.line ?? null;
  const m = /\bline (\d+)/.exec(String(w));
  return m ? Number(m[1]) : null;
}
// the line is shown as a link, so a leading "line 11:" is not repeated in the text
const warningText = (w) => (w && typeof w === "object" ? w.message : String(w)).replace(/^line \d+:\s*/, "");

// Nodes are matched across captures by what they compute and where: op name plus source line.
const matchKey = (n) => (n.kind === "input" ? `in:${n.label}` : `${n.op}@${n.line ?? ""}`);

/** Script nodes with no counterpart in the trace: the branch the trace froze out. */
export function frozenOut(script, trace) {
  const seen = new Set(trace.forward.nodes.map(matchKey));
  return script.forward.nodes.filter((n) => !seen.has(matchKey(n)) && n.kind !== "output").map((n) => n.id);
}

export class StaticPanel {
  constructor(el, { onLine, onNode, onPick }) {
    this.el = el;
    this.onLine = onLine;
    this.onNode = onNode;
    this.onPick = onPick;
  }

  async show(record, graph) {
    const statics = (record?.graphs || []).filter((g) => g.kind === "static");
    if (!statics.length) {
      this.el.innerHTML = `<div class="empty-state"><h3>${t("static.none_title")}</h3><p>${t("static.none")}</p></div>`;
      this.view = null;
      return;
    }
    const g = graph?.kind === "static" ? graph : statics[0];
    const fn = g.function;
    const pair = fn && ["trace", "script"].includes(g.capture)
      ? { trace: statics.find((s) => s.function === fn && s.capture === "trace"), script: statics.find((s) => s.function === fn && s.capture === "script") }
      : null;
    const retraces = statics.filter((s) => s.capture === "function" && s.function === fn && fn);
    const warnings = g.warnings || [];
    this.el.innerHTML = `<div class="static">
      <div class="chips">${statics.map((s) => `<button class="chip ${s === g ? "active" : ""}" data-g="${esc(s.id)}">
          <span class="badge">${esc(t(`capture.${s.capture || "none"}`))}</span> ${esc(s.title || s.id)}</button>`).join("")}</div>
      ${warnings.length ? `<div class="warn-box">${warnings.map((w) => {
        const line = warningLine(w);
        return `<div>⚠ ${line ? `<a href="#" data-line="${line}">${t("inspector.line_n", { n: line })}</a> ` : ""}${esc(warningText(w))}</div>`;
      }).join("")}</div>` : ""}
      ${retraces.length > 1 || (retraces.length && g.reason) ? `<div class="card retraces"><h4>${t("static.retraces")}</h4><ol>${retraces.map((s) =>
        `<li class="${s === g ? "active" : ""}"><code>${esc(s.signature || "")}</code> — ${esc(s.reason || "")}</li>`).join("")}</ol></div>` : ""}
      ${pair?.trace && pair?.script ? `<div class="overlay">
          <h4>${t("static.overlay_title")}</h4>
          <div class="legend"><span class="sw frozen"></span>${t("static.frozen_legend")}</div>
          <div class="pass-graphs">
            <div><h4>${t("capture.trace")}</h4><div class="graphview ov-trace"></div></div>
            <div><h4>${t("capture.script")}</h4><div class="graphview ov-script"></div></div>
          </div></div>`
        : `<div class="graphview static-graph"></div>`}
      <h4>${t("static.ir")}</h4><pre class="ir">${esc(g.ir || g.passes?.[0]?.ir || t("static.no_ir"))}</pre>
    </div>`;
    this.el.querySelectorAll(".chip[data-g]").forEach((b) => { b.onclick = () => this.onPick(b.dataset.g); });
    this.el.querySelectorAll("a[data-line]").forEach((a) => { a.onclick = (e) => { e.preventDefault(); this.onLine(Number(a.dataset.line)); }; });
    const select = (id) => this.onNode?.(id);
    if (pair?.trace && pair?.script) {
      const tv = new GraphView(this.el.querySelector(".ov-trace"), { onSelect: select, compact: true });
      const sv = new GraphView(this.el.querySelector(".ov-script"), { onSelect: select, compact: true });
      sv.setClass("frozen", frozenOut(pair.script, pair.trace));
      const warnLines = new Set((pair.trace.warnings || []).map(warningLine));
      tv.setClass("changed", pair.trace.forward.nodes.filter((n) => warnLines.has(n.line)).map((n) => n.id));
      this.view = sv;
      await Promise.all([tv.show(pair.trace.forward), sv.show(pair.script.forward)]);
    } else {
      this.view = new GraphView(this.el.querySelector(".static-graph"), { onSelect: select });
      await this.view.show(g.forward);
    }
  }

  currentView() { return this.view; }
}
