// The Static tab: captured graphs (trace, script, tf.function, session, compile) with their IR,
// warnings marked on their source lines, trace vs script overlaid, tf.function retraces, and the
// calls of each graph (a stale trace marked, trace and script outputs side by side).
import { callsHTML, comparisonHTML, comparisonRows } from "./calls.js";
import { GraphView } from "./graphview.js";
import { html, show } from "./dom.js";
import { t, tParts, tCode, tMessage, tMessageParts, warningMessage } from "./i18n.js";
import * as identity from "./identity.js";

/** IR text as one span per line; a line defining a node names it (data-node). */
export function irHTML(ir) {
  return String(ir).split("\n").map((line, i) => {
    const id = /^\s*(%[\w.]+) :/.exec(line)?.[1];
    return id ? html`${i ? "\n" : ""}<span class="irl" data-node="${id}">${line}</span>` : `${i ? "\n" : ""}${line}`;
  });
}

/** The source line a warning names ("line 11: ..." or {line}), or null. */
export function warningLine(w) {
  if (w && typeof w === "object") return w.line ?? null;
  const m = /\bline (\d+)/.exec(String(w));
  return m ? Number(m[1]) : null;
}
// the line is shown as a link, so a leading "line 11:" is not repeated in the text
const warningText = (w) => (w && typeof w === "object" ? w.message : String(w)).replace(/^line \d+:\s*/, "");

// the value the trace saw, as Python writes it (the record is JSON: true -> True)
const pythonValue = (v) => (typeof v === "boolean" ? (v ? "True" : "False") : String(v));

/**
 * One warning of a graph as HTML. The warning on a line where a trace froze a decision is
 * explained from the record's `frozen` entry in the page's language, with PyTorch's own
 * TracerWarning (English, as PyTorch prints it) quoted under it; any other is shown as written.
 */
function warningHTML(g, w, i) {
  const line = warningLine(w);
  const link = Number.isInteger(line) && line > 0 ? html`<a href="#" data-line="${line}">${t("inspector.line_n", { n: line })}</a> ` : "";
  const frozen = line && (g.frozen || []).find((f) => f.line === line && f.code);
  if (!frozen) return html`<div>⚠ ${link}${tMessageParts(warningMessage(g, i), warningText(w))}</div>`;
  const said = warningText(w).replace(/^trace froze the branch at line \d+:\s*/, "").replace(/\s*\(value seen: [^)]*\)$/, "");
  return html`<div>⚠ ${link}${tParts("static.frozen_warning", { code: html`<code>${frozen.code}</code>`, value: html`<code>${pythonValue(frozen.value)}</code>` })}
    <div class="muted small">${t("static.tracer_says")} <code class="quoted">${said}</code></div></div>`;
}

/** The captured function's name: the record's `function`, else the IR's `graph NAME(` line. */
export function functionName(g) {
  return g.function || /^graph ([\w.]+)\(/.exec(g.ir || "")?.[1] || null;
}

// Nodes are matched across captures by what they compute and where: op name plus source line.
const matchKey = (n) => (n.kind === "input" ? `in:${n.label}` : `${n.op}@${n.line ?? ""}`);

/**
 * Trace and script of one function compared: the decisions the trace froze (`frozen` nodes),
 * what only the trace has (the one branch it saw, baked in) and only the script has (control
 * flow kept as cond/while_loop, or the branch the trace never took).
 */
export function compareCaptures(trace, script) {
  const inTrace = new Set(trace.forward.nodes.map(matchKey));
  const inScript = new Set(script.forward.nodes.map(matchKey));
  const only = (g, other) => g.forward.nodes.filter((n) => n.kind !== "output" && !other.has(matchKey(n))).map((n) => n.id);
  const frozenLines = new Set((trace.frozen || []).map((f) => f.line));
  return {
    frozen: (trace.frozen || []).map((f) => f.node).filter(Boolean),
    traceOnly: only(trace, inScript),
    scriptOnly: only(script, inTrace),
    // script nodes on a line where the trace froze a decision: where the two part ways
    scriptAtFrozen: script.forward.nodes.filter((n) => frozenLines.has(n.line) && n.kind === "control").map((n) => n.id),
  };
}

/**
 * The nodes of capture `to` standing for nodes `ids` of capture `from` (a trace and a script of one
 * function; they number their nodes independently). A node matches the node of the other capture
 * that computes the same op on the same source line (an input: the same argument name; the
 * graph's output: its output), the k-th such node of one capture the k-th of the other, so two
 * `mul`s on one line pair up in order. There is no match for a node without a source line (a
 * constant a pass made), nor for one whose op and line the other capture lacks: the ops of the
 * branch a trace saw (`y = y + 1`) sit inside the script's `cond` node, which stands for both
 * branches and is not their counterpart, so they light nothing there.
 */
export function counterparts(from, to, ids) {
  const keyed = (g) => {
    const seen = new Map();
    return g.forward.nodes.map((n) => {
      const key = n.kind === "input" ? `in:${n.label}` : n.kind === "output" ? "out" : n.line ? `${n.op}@${n.line}` : null;
      if (!key) return [n.id, null];
      const k = seen.get(key) || 0;
      seen.set(key, k + 1);
      return [n.id, `${key}#${k}`];
    });
  };
  const want = new Set(ids);
  const keys = new Set(keyed(from).filter(([id, key]) => key && want.has(id)).map(([, key]) => key));
  return keyed(to).filter(([, key]) => key && keys.has(key)).map(([id]) => id);
}

/** Why a tf.function graph was traced: the record's reason, else its "first call"/"retraced" warning. */
function retraceReason(g) {
  const warnings = (g.warnings || []).map(warningText);
  const i = warnings.findIndex((x) => /^(first call|retrac)/i.test(x));
  const text = String(g.retrace_reason || g.reason || warnings[i] || "");
  return i >= 0 && warnings[i] === text ? tMessageParts(warningMessage(g, i), text) : text;
}

/**
 * A static graph's DAG with each `cond` node's branches drawn as sub-graphs (one cluster per
 * branch, under the cond, fed from it), instead of the cond alone; the branch the graph's first
 * call took is marked ("taken") and its nodes returned in `taken`. Sub-graph node ids are made
 * unique as `<cond id>/<branch>/<id>` (each branch numbers its own nodes).
 */
export function withBranches(g) {
  const dag = g.forward;
  const conds = (dag?.nodes || []).filter((n) => n.op === "cond" && n.subgraphs && typeof n.subgraphs === "object");
  if (!conds.length) return { graph: dag, taken: [] };
  const tookOf = new Map(((g.calls || [])[0]?.branches || []).filter((b) => b.kind === "cond").map((b) => [b.node, b.taken]));
  const nodes = [...dag.nodes], edges = [...(dag.edges || [])], taken = [];
  for (const c of conds) {
    for (const [name, sub] of Object.entries(c.subgraphs)) {
      if (!sub?.nodes) continue;
      const id = (local) => `${c.id}/${name}/${local}`;
      const took = tookOf.get(c.id) === name;
      const cluster = `${c.label || c.op} ${t(name === "then" ? "static.branch_then" : name === "else" ? "static.branch_else" : "static.branch", { name })}${took ? ` ✓ ${t("static.branch_taken")}` : ""}`;
      for (const n of sub.nodes) {
        nodes.push({ ...n, id: id(n.id), module: cluster, kind: n.kind === "output" ? "op" : n.kind, branch_of: c.id });
        if (took) taken.push(id(n.id));
      }
      for (const e of sub.edges || []) edges.push({ ...e, src: id(e.src), dst: id(e.dst) });
      for (const n of sub.nodes.filter((m) => m.kind === "input" || m.op === "placeholder")) edges.push({ src: c.id, dst: id(n.id) });
    }
  }
  return { graph: { ...dag, nodes, edges }, taken };
}

export class StaticPanel {
  constructor(el, { onLine, onPick }) {
    this.el = el;
    this.onLine = onLine;
    this.onPick = onPick;
    this.drawn = [];          // [view, graph record]: where the page's identity lights up
    identity.subscribe((ident) => this.applyIdentity(ident));
  }

  async show(record, graph) {
    const statics = (record?.graphs || []).filter((g) => g.kind === "static");
    if (!statics.length) {
      show(this.el, html`<div class="empty-state"><h3>${t("static.none_title")}</h3><p>${tCode("static.none")}</p></div>`);
      this.view = null;
      this.drawn = [];
      return;
    }
    const g = graph?.kind === "static" ? graph : statics[0];
    const fn = functionName(g);
    const same = (s, capture) => s.capture === capture && functionName(s) === fn;
    const pair = fn && ["trace", "script"].includes(g.capture)
      // a script specialised to the traced input's shapes compares best: prefer the last one
      ? { trace: statics.find((s) => same(s, "trace")), script: statics.filter((s) => same(s, "script")).at(-1) }
      : null;
    const retraces = fn ? statics.filter((s) => same(s, "function")) : [];
    const warnings = g.warnings || [];
    show(this.el, html`<div class="static">
      <div class="chips">${statics.map((s) => html`<button class="chip ${s === g ? "active" : ""}" data-g="${s.id}">
          <span class="badge">${t(`capture.${s.capture || "none"}`)}</span> ${tMessage(s.title_message, s.title || s.id)}</button>`)}</div>
      ${warnings.length ? html`<div class="warn-box">${warnings.map((w, i) => warningHTML(g, w, i))}</div>` : ""}
      ${retraces.length ? html`<div class="card retraces"><h4>${t("static.retraces")}</h4><ol>${retraces.map((s) =>
        html`<li class="${s === g ? "active" : ""}">${s.signature || tMessage(s.title_message, s.title || s.id)} — ${retraceReason(s)}</li>`)}</ol></div>` : ""}
      ${callsHTML(g)}
      ${pair?.trace && pair?.script ? html`<div class="overlay">
          <h4>${t("static.overlay_title")}</h4>
          ${comparisonHTML(comparisonRows(pair.trace, statics))}
          <div class="legend"><span><span class="sw frozen"></span>${t("static.frozen_legend")}</span>
            <span><span class="sw changed"></span>${t("static.trace_only_legend")}</span>
            <span><span class="sw added"></span>${t("static.script_only_legend")}</span></div>
          <div class="pass-graphs">
            <div><h4>${t("capture.trace")}</h4><div class="graphview ov-trace"></div></div>
            <div><h4>${t("capture.script")}</h4><div class="graphview ov-script"></div></div>
          </div></div>`
        : html`<div class="graphview static-graph"></div>`}
      <p class="muted small">${t("static.identity_hint")}</p>
      <h4>${t("static.ir")}</h4><pre class="ir">${g.ir || g.passes?.[0]?.ir ? irHTML(g.ir || g.passes[0].ir) : t("static.no_ir")}</pre>
      ${g.jaxpr ? html`<h4>${t("static.jaxpr")}</h4><pre class="jaxpr">${g.jaxpr}</pre>` : ""}
      ${g.unbatched_jaxpr ? html`<h4>${t("static.unbatched_jaxpr")}</h4><pre class="jaxpr">${g.unbatched_jaxpr}</pre>` : ""}
    </div>`);
    this.el.querySelectorAll(".chip[data-g]").forEach((b) => { b.onclick = () => this.onPick(b.dataset.g); });
    this.el.querySelectorAll("a[data-line]").forEach((a) => { a.onclick = (e) => { e.preventDefault(); this.onLine(Number(a.dataset.line)); }; });
    // a node picked in a drawing is the page's identity (as captured: stage 0)
    const graphOf = new Map();
    const nodeIdent = (id, view) => (id ? { graph: graphOf.get(view).id, side: "forward", stage: 0, ids: [id] } : null);
    const select = (id, view) => identity.pick(nodeIdent(id, view));
    const hover = (id, view) => identity.hover(nodeIdent(id, view));
    const irIdent = (el) => ({ graph: g.id, side: "forward", stage: 0, ids: [el.dataset.node] });
    this.el.querySelectorAll("pre.ir .irl").forEach((el) => {
      el.onmouseenter = () => identity.hover(irIdent(el));
      el.onmouseleave = () => identity.hover(null);
      el.onclick = () => identity.pick(irIdent(el));
    });
    this.graph = g;
    let home;   // the drawing of g, where a call's control points light up
    if (pair?.trace && pair?.script) {
      const tv = new GraphView(this.el.querySelector(".ov-trace"), { onSelect: select, onHover: hover, compact: true });
      const sv = new GraphView(this.el.querySelector(".ov-script"), { onSelect: select, onHover: hover, compact: true });
      const cmp = compareCaptures(pair.trace, pair.script);
      const script = withBranches(pair.script);
      tv.setClass("frozen", cmp.frozen);
      tv.setClass("changed", cmp.traceOnly);
      sv.setClass("added", [...cmp.scriptOnly, ...cmp.scriptAtFrozen]);
      sv.setClass("taken", script.taken);
      this.view = sv;
      home = g === pair.trace ? tv : g === pair.script ? sv : null;
      this.lightCalls(g, home);
      graphOf.set(tv, pair.trace).set(sv, pair.script);
      this.drawn = [[tv, pair.trace], [sv, pair.script]];
      this.applyIdentity(identity.current());
      await Promise.all([tv.show(pair.trace.forward), sv.show(script.graph)]);
    } else {
      this.view = home = new GraphView(this.el.querySelector(".static-graph"), { onSelect: select, onHover: hover });
      const drawn = withBranches(g);
      home.setClass("taken", drawn.taken);
      this.lightCalls(g, home);
      graphOf.set(home, g);
      this.drawn = [[home, g]];
      this.applyIdentity(identity.current());
      await this.view.show(drawn.graph);
    }
  }

  /** Light the page's identity in the drawings (as captured) and in the IR text: classes only. */
  applyIdentity(ident) {
    for (const [view, graph] of this.drawn) view.setClass("ident", this.identIn(graph, ident));
    const mine = new Set(this.graph ? this.identIn(this.graph, ident) : []);
    this.el.querySelectorAll("pre.ir .irl").forEach((el) => el.classList.toggle("ident", mine.has(el.dataset.node)));
  }

  /** What stands for `ident` in a drawn capture: its own nodes, or in a trace-and-script overlay,
   * the counterparts of the other capture's nodes. */
  identIn(graph, ident) {
    const own = identity.idsAt(graph, ident, 0);
    if (own.length || this.drawn.length < 2) return own;
    const other = this.drawn.map(([, g]) => g).find((g) => g !== graph && g.id === ident?.graph);
    return other ? counterparts(other, graph, identity.idsAt(other, ident, 0)) : [];
  }

  /** Hovering a call lights the nodes of its control points (the frozen condition, the cond taken). */
  lightCalls(g, view) {
    if (!view) return;
    this.el.querySelectorAll(".calls-table tr.call").forEach((row) => {
      const call = (g.calls || []).find((c) => String(c.index) === row.dataset.call);
      const ids = (call?.branches || []).map((b) => b.node).filter(Boolean);
      row.addEventListener("mouseenter", () => view.setClass("hover", ids));
      row.addEventListener("mouseleave", () => view.setClass("hover", []));
    });
  }

  currentView() { return this.view; }
}
