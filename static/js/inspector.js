// The node inspector: what a node is, where it came from in the code, its value and gradient,
// and the op's explanation card from the registry.
import { html, show } from "./dom.js";
import { t, tOp } from "./i18n.js";
import { shapeText, tensorHTML } from "./tensorview.js";

let cards = { ops: {}, grad_fns: {} };
export function setOpCards(c) { cards = c; }

/** The registry card for a forward op, or for a backward node: by the op it differentiates
 * (`forward_op`: a grad_fn name may depend on shapes, ViewBackward0 or UnsafeViewBackward0), else
 * by its name (MulBackward0 -> mul). */
export function cardFor(node) {
  if (!node) return null;
  return cards.ops[node.op] || cards.ops[node.forward_op] || cards.ops[cards.grad_fns[node.op]] || null;
}

/** The numerical gradient check of a leaf: a button, "checking…", or the badge with its error. */
function gradcheckHTML(check) {
  if (!check) return html`<button class="gradcheck-run">${t("gradcheck.button")}</button>`;
  if (check === "running") return html`<span class="muted">${t("gradcheck.running")}</span>`;
  if (check === "unavailable") return html`<span class="muted small">${t("gradcheck.unavailable")}</span>`;
  const err = Number(check.max_abs_err ?? check.max_error ?? 0).toExponential(1);
  return check.ok ? html`<span class="badge ok">${t("gradcheck.ok", { err })}</span>` : html`<span class="badge bad">${t("gradcheck.bad", { err })}</span>`;
}

export function cardHTML(card) {
  if (!card) return "";
  return html`<div class="card op-card">
    <div class="card-title">${card.name} <span class="badge">${t(`kind.${card.kind}`)}</span></div>
    <div class="kv"><span>${t("card.forward")}</span><code class="formula">${tOp(card.formula)}</code></div>
    <div class="kv"><span>${t("card.backward")}</span><code class="rule">${card.rule ? tOp(card.rule) : t("card.no_grad")}</code></div>
    ${card.grad_fn ? html`<div class="kv"><span>${t("card.grad_fn")}</span><code>${card.grad_fn}</code></div>` : ""}
  </div>`;
}

/**
 * Fill `el` for one node. role: "forward" | "backward". onLine(line) jumps the editor.
 * linked: ids of the other view's linked nodes (shown as chips, clicking selects them).
 */
const valuePart = (node, iteration) => (node.value
  ? html`<h4>${t(iteration ? "inspector.value" : "inspector.value_recorded")}</h4>${tensorHTML(node.value)}` : "");
const gradPart = (node) => (node.grad ? html`<h4>${t("inspector.grad")}</h4>${tensorHTML(node.grad)}` : "");

/** While the iteration slider moves with `node` inspected in `el` (by inspect(), with an
 * iteration): only what the iteration changes — its note, the value, the gradient and the charts'
 * markers — is written again, not the whole inspector (each scrubbed frame). False when `el`
 * does not show `node` so (inspect() it instead). */
export function inspectIteration(el, node, iteration) {
  const parts = ["head", "value", "grad", "charts"].map((p) => el.querySelector(`:scope > .insp-${p === "head" ? "iter-head" : p}`));
  if (el.dataset.node !== node.id || !iteration || parts.some((p) => !p)) return false;
  const [head, value, grad, charts] = parts;
  show(head, iteration.head);
  show(value, valuePart(node, iteration));
  show(grad, gradPart(node));
  show(charts, iteration.charts);
  return true;
}

export function inspect(el, node, { role, onLine, linked = [], onLinked, onGradcheck, gradcheck, iteration = null, flow = null }) {
  el.dataset.node = node && iteration ? node.id : "";        // (inspectIteration's check)
  if (!node) {
    show(el, html`<div class="muted hint">${t("inspector.empty")}</div>`);
    return;
  }
  const line = Number.isInteger(node.line) ? node.line : null;
  const rows = [
    [t("inspector.op"), html`<code>${node.op}</code>`],
    node.name ? [t("inspector.name"), html`<code>${node.name}</code>`] : null,
    [t("inspector.shape"), html`<code>${shapeText(node.shape) || "—"}</code> <span class="muted">${node.dtype || ""}</span>`],
    node.module ? [t("inspector.module"), html`<code>${node.module}</code>`] : null,
    node.grad_fn ? [t("inspector.grad_fn"), html`<code>${node.grad_fn}</code>`] : null,
    [t("inspector.line"), line ? html`<a href="#" class="jump-line" data-line="${line}">${t("inspector.line_n", { n: line })}</a>` : "—"],
  ].filter(Boolean);
  const linkedLabel = role === "forward" ? t("inspector.backward_nodes") : t("inspector.forward_node");
  show(el, html`
    <div class="inspector-title">${String(node.label || node.op).split("\n")[0]} <span class="muted">${node.id}</span></div>
    <div class="kvs">${rows.map(([k, v]) => html`<div class="kv"><span>${k}</span><span>${v}</span></div>`)}</div>
    ${linked.length ? html`<div class="kv"><span>${linkedLabel}</span><span>${linked.map((id, i) => html`${i ? " " : ""}<button class="chip" data-node="${id}">${id}</button>`)}</span></div>` : ""}
    <div class="insp-iter-head">${iteration ? iteration.head : ""}</div>
    <div class="insp-value">${valuePart(node, iteration)}</div>
    ${node.value_after ? html`<h4>${iteration?.after || t("inspector.value_after")}</h4>${tensorHTML(node.value_after)}` : ""}
    ${flow?.grad_in ? html`<h4>${t("inspector.grad_in")}</h4>${tensorHTML(flow.grad_in)}` : ""}
    ${flow?.grad_out?.length ? html`<h4>${t("inspector.grad_out")}</h4>${flow.grad_out.map((o) => html`<div class="flow-out"><div class="small">→ <strong>${o.to}</strong></div>${tensorHTML(o.tensor)}</div>`)}` : ""}
    <div class="insp-grad">${gradPart(node)}</div>
    ${node.grad && onGradcheck ? html`<div class="gradcheck">${gradcheckHTML(gradcheck)}</div>` : ""}
    <div class="insp-charts">${iteration ? iteration.charts : ""}</div>
    ${node.rule ? html`<h4>${t("inspector.rule")}</h4><code class="rule">${tOp(node.rule)}</code>` : ""}
    ${cardHTML(cardFor(node))}
    <div class="legend-mini"><span><i class="l-sel"></i>${t("legend.sel")}</span><span><i class="l-linked"></i>${t("legend.linked")}</span><span><i class="l-saved"></i>${t("legend.saved")}</span></div>`);
  el.querySelector(".gradcheck-run")?.addEventListener("click", () => onGradcheck(node));
  el.querySelector(".jump-line")?.addEventListener("click", (e) => { e.preventDefault(); onLine(line); });
  el.querySelectorAll(".chip").forEach((b) => b.addEventListener("click", () => onLinked(b.dataset.node)));
}
