// Calls of a captured graph (the record's `calls`): each call's input, the branch every control
// point took, its output, and for a trace whether the branch it froze was wrong for that input
// (a stale call); and a trace and a script of one function side by side on the same input.
import { html } from "./dom.js";
import { t } from "./i18n.js";
import { flatten, fmt, shapeText } from "./tensorview.js";

const MAX_INLINE = 8;   // a tensor with more elements is summarized (dtype, shape, mean)

/** A tensor in one line: its values when small, else dtype, shape and mean. */
export function tensorText(tensor) {
  if (!tensor) return "—";
  if (tensor.data !== null && tensor.data !== undefined) {
    if (!Array.isArray(tensor.data)) return fmt(tensor.data);
    const flat = flatten(tensor.data);
    if (flat.length <= MAX_INLINE) return JSON.stringify(tensor.data, (k, v) => (typeof v === "number" ? fmt(v) : v)).replace(/"/g, "").replace(/,/g, ", ");
  }
  const mean = tensor.stats ? fmt(tensor.stats.mean) : "—";
  return t("calls.tensor_summary", { dtype: tensor.dtype || "", shape: shapeText(tensor.shape), mean });
}

// a null tensor: changed in place after the call, so its value then is unknown
const tensorsText = (ts) => (ts || []).map((x) => (x ? tensorText(x) : t("calls.changed_after"))).join(", ");
const yesNo = (b) => t(b ? "calls.true" : "calls.false");
// a value Python read: a bool, a number ("nan"/"inf" arrive as strings), or nested lists
const valueText = (v) => (typeof v === "boolean" ? yesNo(v) : typeof v === "number" ? fmt(v)
  : typeof v === "string" ? v : JSON.stringify(v).replace(/"/g, ""));

/** One control point of one call, in words. */
export function branchText(b) {
  const code = b.code || t("calls.value_at_line", { line: b.line });
  if (b.kind === "frozen") {
    const key = b.read === "bool" ? (b.holds ? "calls.frozen_holds" : "calls.frozen_broken")
      : (b.holds ? "calls.read_holds" : "calls.read_broken");
    return t(key, { code, now: valueText(b.now), traced: valueText(b.traced) });
  }
  if (b.kind === "cond") return t("calls.cond", { branch: t(b.taken === "then" ? "calls.then" : "calls.else") });
  if (b.kind === "while") return t("calls.while", { n: b.iterations });
  return "";
}

/** Why a call is stale, from its first broken frozen decision (worded from the catalog). */
export function staleText(call) {
  const b = (call.branches || []).find((x) => x.kind === "frozen" && !x.holds);
  if (!b) return call.reason || "";
  const code = b.code || t("calls.value_at_line", { line: b.line });
  return b.read === "bool"
    ? t("calls.stale_bool", { code, traced: yesNo(b.traced), now: yesNo(b.now), line: b.line })
    : t("calls.stale_value", { code, traced: valueText(b.traced), now: valueText(b.now), line: b.line });
}

const lineLink = (line) => (Number.isInteger(line) && line > 0 ? html`<a href="#" data-line="${line}">${t("inspector.line_n", { n: line })}</a>` : "—");

/** The calls table of one captured graph (empty string when it has none). */
export function callsHTML(g) {
  const calls = g.calls || [];
  if (!calls.length) return "";
  const total = g.calls_total ?? calls.length;
  const stale = calls.filter((c) => c.stale).length;
  const rows = calls.map((c) => {
    const branches = (c.branches || []).map((b) => html`<div class="${b.kind === "frozen" && !b.holds ? "broken" : null}">${b.line ? html`${lineLink(b.line)} ` : ""}${branchText(b)}</div>`);
    const status = c.stale ? html`<span class="badge bad">${t("calls.stale")}</span>` : html`<span class="badge ok">${t("calls.ok")}</span>`;
    return html`<tr class="call ${c.stale ? "stale" : ""}" data-call="${c.index}">
        <td>${c.index + 1}</td><td>${lineLink(c.line)}</td><td><code>${tensorsText(c.inputs)}</code></td>
        <td class="branches">${branches.length ? branches : "—"}</td><td><code>${tensorsText(c.outputs)}</code></td><td>${status}</td></tr>
      ${c.stale ? html`<tr class="stale-reason"><td></td><td colspan="5">⚠ ${staleText(c)}</td></tr>` : ""}`;
  });
  const skipped = total > calls.length ? html`<div class="muted small">${t("calls.skipped", { n: total - calls.length })}</div>` : "";
  return html`<div class="card calls">
      <h4>${t("calls.title", { n: total })}${stale ? html` <span class="badge bad">${t("calls.n_stale", { n: stale })}</span>` : ""}</h4>
      <table class="calls-table"><thead><tr><th>#</th><th>${t("calls.line")}</th><th>${t("calls.input")}</th>
        <th>${t("calls.branch")}</th><th>${t("calls.output")}</th><th></th></tr></thead><tbody>${rows}</tbody></table>${skipped}</div>`;
}

/** Trace and script outputs on the same inputs (from the trace's calls' `same_input` links). */
export function comparisonRows(trace, statics) {
  const rows = [];
  for (const c of trace.calls || []) {
    for (const link of c.same_input || []) {
      if (link.capture !== "script") continue;
      const other = statics.find((s) => s.id === link.graph)?.calls?.find((x) => x.index === link.call);
      if (other) rows.push({ trace: c, script: other, link });
    }
  }
  return rows;
}

export function comparisonHTML(rows) {
  if (!rows.length) return "";
  const body = rows.map(({ trace, script, link }) => html`<tr class="${link.agree ? "agree" : "differ"}">
      <td><code>${tensorsText(trace.inputs)}</code></td>
      <td><code>${tensorsText(trace.outputs)}</code>${trace.stale ? html` <span class="badge bad">${t("calls.stale")}</span>` : ""}</td>
      <td><code>${tensorsText(script.outputs)}</code></td>
      <td>${link.agree === null ? html`<span class="badge">${t("calls.not_comparable")}</span>`
        : link.agree ? html`<span class="badge ok">${t("calls.agree")}</span>`
        : html`<span class="badge bad">${t("calls.differ", { d: link.max_abs_diff === null || link.max_abs_diff === undefined ? "?" : fmt(link.max_abs_diff) })}</span>`}</td></tr>`);
  return html`<div class="card compare"><h4>${t("calls.compare_title")}</h4>
      <table class="compare-table"><thead><tr><th>${t("calls.input")}</th><th>${t("calls.trace_output")}</th>
        <th>${t("calls.script_output")}</th><th></th></tr></thead><tbody>${body}</tbody></table></div>`;
}
