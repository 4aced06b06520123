// The node inspector: what a node is, where it came from in the code, its value and gradient,
// and the op's explanation card from the registry.
import { t } from "./i18n.js";
import { esc, shapeText, tensorHTML } from "./tensorview.js";

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
  if (!check) return `<button class="gradcheck-run">${t("gradcheck.button")}</button>`;
  if (check === "running") return `<span class="muted">${t("gradcheck.running")}</span>`;
  if (check === "unavailable") return `<span class="muted small">${t("gradcheck.unavailable")}</span>`;
  const err = Number(check.max_abs_err ?? check.max_error ?? 0).toExponential(1);
  return check.ok ? `<span class="badge ok">${t("gradcheck.ok", { err })}</span>` : `<span class="badge bad">${t("gradcheck.bad", { err })}</span>`;
}

export function cardHTML(card) {
  if (!card) return "";
  return `<div class="card op-card">
    <div class="card-title">${esc(card.name)} <span class="badge">${esc(t(`kind.${card.kind}`))}</span></div>
    <div class="kv"><span>${t("card.forward")}</span><code>${esc(card.formula)}</code></div>
    <div class="kv"><span>${t("card.backward")}</span><code>${esc(card.rule || t("card.no_grad"))}</code></div>
    ${card.grad_fn ? `<div class="kv"><span>${t("card.grad_fn")}</span><code>${esc(card.grad_fn)}</code></div>` : ""}
  </div>`;
}

/**
 * Fill `el` for one node. role: "forward" | "backward". onLine(line) jumps the editor.
 * linked: ids of the other view's linked nodes (shown as chips, clicking selects them).
 */
export function inspect(el, node, { role, onLine, linked = [], onLinked, onGradcheck, gradcheck }) {
  if (!node) {
    el.innerHTML = `<div class="muted hint">${t("inspector.empty")}</div>`;
    return;
  }
  const rows = [
    [t("inspector.op"), `<code>${esc(node.op)}</code>`],
    node.name ? [t("inspector.name"), `<code>${esc(node.name)}</code>`] : null,
    [t("inspector.shape"), `<code>${esc(shapeText(node.shape) || "—")}</code> <span class="muted">${esc(node.dtype || "")}</span>`],
    node.module ? [t("inspector.module"), `<code>${esc(node.module)}</code>`] : null,
    node.grad_fn ? [t("inspector.grad_fn"), `<code>${esc(node.grad_fn)}</code>`] : null,
    [t("inspector.line"), node.line ? `<a href="#" class="jump-line" data-line="${node.line}">${t("inspector.line_n", { n: node.line })}</a>` : "—"],
  ].filter(Boolean);
  const linkedLabel = role === "forward" ? t("inspector.backward_nodes") : t("inspector.forward_node");
  el.innerHTML = `
    <div class="inspector-title">${esc((node.label || node.op).split("\n")[0])} <span class="muted">${esc(node.id)}</span></div>
    <div class="kvs">${rows.map(([k, v]) => `<div class="kv"><span>${k}</span><span>${v}</span></div>`).join("")}</div>
    ${linked.length ? `<div class="kv"><span>${linkedLabel}</span><span>${linked.map((id) => `<button class="chip" data-node="${esc(id)}">${esc(id)}</button>`).join(" ")}</span></div>` : ""}
    ${node.value ? `<h4>${t("inspector.value")}</h4>${tensorHTML(node.value)}` : ""}
    ${node.grad ? `<h4>${t("inspector.grad")}</h4>${tensorHTML(node.grad)}` : ""}
    ${node.grad && onGradcheck ? `<div class="gradcheck">${gradcheckHTML(gradcheck)}</div>` : ""}
    ${node.rule ? `<h4>${t("inspector.rule")}</h4><code class="rule">${esc(node.rule)}</code>` : ""}
    ${cardHTML(cardFor(node))}
    <div class="legend-mini"><span><i class="l-sel"></i>${t("legend.sel")}</span><span><i class="l-linked"></i>${t("legend.linked")}</span><span><i class="l-saved"></i>${t("legend.saved")}</span></div>`;
  el.querySelector(".gradcheck-run")?.addEventListener("click", () => onGradcheck(node));
  el.querySelector(".jump-line")?.addEventListener("click", (e) => { e.preventDefault(); onLine(node.line); });
  el.querySelectorAll(".chip").forEach((b) => b.addEventListener("click", () => onLinked(b.dataset.node)));
}
