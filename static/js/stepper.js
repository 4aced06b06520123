// The backprop stepper: one backward node at a time — upstream gradient × local rule = gradients
// sent on — lit in both DAGs, with leaf gradients accumulating and a predict-then-reveal mode.
import { html, show } from "./dom.js";
import { t, tOp } from "./i18n.js";
import { flatten, fmt, tensorHTML } from "./tensorview.js";

const PLAY_MS = 1100;
const PLAY_ICON = () => html`<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M4 3v10l9-5z" fill="currentColor"/></svg>`;
const PAUSE_ICON = () => html`<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M4 3h3v10H4zM9 3h3v10H9z" fill="currentColor"/></svg>`;

// A guess is right within 1% of each number (the page states it), close within 10%.
export const GUESS_TOLERANCE = 0.01;
const CLOSE_TOLERANCE = 0.1;

/** The numbers typed in a guess ("2, 4", "[2., 4.]", "-1e-3"). */
const numbersOf = (guess) => (guess.match(/-?\d*\.?\d+(?:e[-+]?\d+)?/gi) || []).map(Number);

/**
 * How a typed guess compares with a tensor's data: { verdict: "right" | "close" | "wrong", hint }
 * or null when the tensor carries no data. One number stands for every element. The hint says
 * which way a near miss is off ("high", "low", "mixed"), or, for a miss, "sign" (right size,
 * wrong sign), "scale" with `factor` (off by a power of ten or so), or "count" with `n`.
 */
export function judgeGuess(guess, tensor) {
  if (!tensor || tensor.data === null || tensor.data === undefined) return null;
  const want = flatten(tensor.data);
  let got = numbersOf(guess);
  if (got.length === 1 && want.length > 1) got = want.map(() => got[0]);
  if (got.length !== want.length) return { verdict: "wrong", hint: "count", n: want.length };
  // a number near zero is judged against the tensor's size, so 0.0001 for a 0 among 2s is right
  const floor = 1e-6 + 1e-3 * Math.max(...want.map(Math.abs));
  const within = (tol, a, b) => Math.abs(a - b) <= tol * Math.abs(b) + floor;
  if (got.every((g, i) => within(GUESS_TOLERANCE, g, want[i]))) return { verdict: "right" };
  if (got.every((g, i) => within(CLOSE_TOLERANCE, g, want[i]))) {
    const above = got.filter((g, i) => g > want[i]).length, below = got.filter((g, i) => g < want[i]).length;
    return { verdict: "close", hint: !below ? "high" : !above ? "low" : "mixed" };
  }
  if (got.every((g, i) => within(GUESS_TOLERANCE, Math.abs(g), Math.abs(want[i])))) return { verdict: "wrong", hint: "sign" };
  // every number off by about the same factor: say which (a power of ten, or ×2 from a missed rule)
  const ratios = got.map((g, i) => (want[i] ? Math.abs(g / want[i]) : NaN)).filter((r) => Number.isFinite(r) && r > 0);
  if (ratios.length && ratios.every((r) => Math.abs(Math.log(r / ratios[0])) < 0.1)) {
    const r = ratios[0];
    const factor = Number((r >= 1 ? r : 1 / r).toPrecision(2));
    if (factor >= 1.5) return { verdict: "wrong", hint: r > 1 ? "too_big" : "too_small", factor };
  }
  return { verdict: "wrong", hint: null };
}

/** Does a typed guess match a tensor's data (within the stated tolerance)? null without data. */
export function guessMatches(guess, tensor) {
  const j = judgeGuess(guess, tensor);
  return j === null ? null : j.verdict === "right";
}

/** A tensor's numbers as a short text for a worked line ("[1., 1.]"), or null when too many to read. */
export function shortValue(tensor, max = 6) {
  if (!tensor || tensor.data === null || tensor.data === undefined) return null;
  const flat = flatten(tensor.data);
  if (flat.length > max) return null;
  return Array.isArray(tensor.data) ? `[${flat.map(fmt).join(", ")}]` : fmt(tensor.data);
}

/** The part of a rule ("grad_a = grad * b; grad_b = grad * a") that makes gradient j, when the
 * rule has one part per gradient sent; else the whole rule. */
export function rulePart(rule, j, count) {
  const parts = (rule || "").split(/;\s*/).filter(Boolean);
  return parts.length === count && parts.length > 1 ? parts[j] : rule || "";
}

/** The rule with the upstream gradient's numbers written in for `grad` (a worked line). */
export function ruleWithUpstream(rule, upstream) {
  const v = shortValue(upstream);
  return v === null ? rule : rule.replace(/\bgrad\b(?!_)/g, v);
}

function addInto(acc, tensor) {
  if (!tensor || tensor.data === null || tensor.data === undefined) return tensor;
  if (!acc || acc.data === null || acc.data === undefined) return structuredClone(tensor);
  const add = (a, b) => (Array.isArray(a) ? a.map((x, i) => add(x, b[i])) : a + b);
  const data = add(acc.data, tensor.data);
  const flat = flatten(data);
  const mean = flat.reduce((s, x) => s + x, 0) / flat.length;
  const std = Math.sqrt(flat.reduce((s, x) => s + (x - mean) ** 2, 0) / flat.length);
  return { ...acc, data, stats: { min: Math.min(...flat), max: Math.max(...flat), mean, std } };
}

export class Stepper {
  constructor({ controls, detail, backwardView, forwardView, onChange }) {
    this.controlsEl = controls;
    this.detail = detail;
    this.bv = backwardView;
    this.fv = forwardView;
    this.onChange = onChange;
    this.graph = null;
    this.index = 0;
    this.timer = null;
    this.predict = false;
    this.mode = "backward";   // "forward" walks the ops in execution order instead
    this.revealed = new Set();
    this.guesses = {};
    this.buildControls();
  }

  buildControls() {
    show(this.controlsEl, html`
      <button data-act="first" title="${t("step.first")}"><svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M3 3h2v10H3zM14 3v10L6 8z" fill="currentColor"/></svg></button>
      <button data-act="prev" title="${t("step.prev")}"><svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M12 3v10L4 8z" fill="currentColor"/></svg></button>
      <button data-act="play" class="primary play" title="${t("step.play")}">${PLAY_ICON()}</button>
      <button data-act="next" title="${t("step.next")}"><svg viewBox="0 0 16 16" width="14" style="transform:scaleX(1)" height="14" aria-hidden="true"><path d="M4 3v10l8-5z" fill="currentColor"/></svg></button>
      <button data-act="last" title="${t("step.last")}"><svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M11 3h2v10h-2zM2 3v10l8-5z" fill="currentColor"/></svg></button>
      <input type="range" class="step-slider" min="0" max="0" value="0" aria-label="${t("step.slider")}">
      <span class="step-label"></span>
      <span class="seg" role="group" aria-label="${t("step.mode")}">
        <button data-mode="backward" aria-pressed="${String(this.mode === "backward")}">${t("step.mode_backward")}</button>
        <button data-mode="forward" aria-pressed="${String(this.mode === "forward")}">${t("step.mode_forward")}</button>
      </span>
      <label class="predict"><input type="checkbox" class="predict-toggle" checked="${this.predict ? "" : null}"> ${t("step.predict")}</label>`);
    const acts = { first: () => this.go(0), prev: () => this.go(this.index - 1), next: () => this.go(this.index + 1),
                   last: () => this.go(this.count - 1), play: () => (this.timer ? this.pause() : this.play()) };
    this.controlsEl.querySelectorAll("[data-act]").forEach((b) => { b.onclick = () => { if (b.dataset.act !== "play") this.pause(); acts[b.dataset.act](); }; });
    this.slider = this.controlsEl.querySelector(".step-slider");
    this.slider.oninput = () => { this.pause(); this.go(Number(this.slider.value)); };
    this.controlsEl.querySelectorAll("[data-mode]").forEach((b) => { b.onclick = () => this.setMode(b.dataset.mode); });
    this.controlsEl.querySelector(".predict-toggle").onchange = (e) => { this.predict = e.target.checked; this.renderDetail(); };
  }

  /**
   * Backprop another recorded iteration of the graph (a training loop's: the same nodes, that
   * iteration's gradients); `label` names it beside the step count. The drawings stay as they are.
   */
  setSteps(steps, label = "") {
    this.iterationLabel = label;
    if (!this.graph || !Array.isArray(steps)) return;
    if (steps !== this.graph.steps) {
      this.pause();
      this.graph = { ...this.graph, steps };
      this.revealed = new Set();
      this.guesses = {};
    }
    if (this.count) this.go(this.index, { silent: true });
  }

  /** Has the graph recorded backprop steps (else the stepper can only walk the forward ops)? */
  get canBackprop() { return !!(this.graph?.steps?.length && this.graph.backward); }

  get count() { return this.mode === "forward" ? this.forwardOps().length : this.graph?.steps?.length || 0; }

  /** Forward op nodes in execution order (the record lists them inputs-first). */
  forwardOps() {
    if (!this.graph?.forward) return [];
    if (this._fwdFor !== this.graph) {
      this._fwdFor = this.graph;
      this._fwd = this.graph.forward.nodes.filter((n) => n.kind === "op" || n.kind === "output");
    }
    return this._fwd;
  }

  setMode(mode) {
    this.pause();
    this.mode = mode;
    this.controlsEl.querySelectorAll("[data-mode]").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.mode === mode)));
    this.controlsEl.querySelector(".predict").hidden = mode === "forward";
    this.slider.max = Math.max(0, this.count - 1);
    for (const v of [this.bv, this.fv]) for (const c of ["done", "current", "linked"]) v.setClass(c, []);
    this.go(0);
  }

  /** Draw both DAGs of a graph with steps; resolves when drawn. */
  async load(graph, index = 0, { why: failed = null } = {}) {
    this.pause();
    this.bv.setTitle(t("tab.backward"));
    this.fv.setTitle(t("tab.forward"));
    this.graph = graph;
    this.iterationLabel = "";
    this.revealed = new Set();
    this.guesses = {};
    // backprop when the graph has recorded steps; otherwise walk the forward ops in order
    this.mode = graph?.steps?.length && graph.backward ? "backward" : "forward";
    this.buildControls();
    this.slider.max = Math.max(0, this.count - 1);
    this.controlsEl.querySelector("[data-mode=backward]").disabled = !(graph?.steps?.length && graph.backward);
    this.controlsEl.querySelector(".predict").hidden = this.mode === "forward";
    if (!graph || !this.count) {
      const why = !graph ? t("step.none_run") : t("step.none");
      // a run that failed before recording a graph says so (not "run some code first")
      this.bv.showMessage(!graph && failed ? failed : html`<div class="empty-state"><h3>${t("step.none_title")}</h3><p>${why}</p></div>`);
      this.fv.showMessage("");
      show(this.detail);
      this.controlsEl.classList.add("disabled");
      return;
    }
    this.controlsEl.classList.remove("disabled");
    if (!graph.backward) this.bv.showMessage(html`<div class="empty-state"><p>${t("step.no_backward")}</p></div>`);
    await Promise.all([graph.backward ? this.bv.show(graph.backward) : null, this.fv.show(graph.forward)]);
    this.go(index, { silent: true });
  }

  go(i, { silent = false } = {}) {
    if (!this.count) return;
    this.index = Math.max(0, Math.min(this.count - 1, i));
    if (this.mode === "forward") { this.goForward(silent); return; }
    const steps = this.graph.steps;
    const cur = steps[this.index];
    const done = steps.slice(0, this.index);
    // a captured graph's step may be several backward nodes (the IR ops of one vjp): `nodes`
    this.bv.setClass("done", done.flatMap((s) => s.nodes || [s.node]));
    this.bv.setClass("current", cur.nodes || [cur.node]);
    this.bv.setClass("linked", cur.targets || []);
    this.fv.setClass("done", done.map((s) => s.forward_node));
    this.fv.setClass("current", [cur.forward_node]);
    this.bv.centerOn(cur.node);
    this.fv.centerOn(cur.forward_node);
    this.slider.value = this.index;
    this.controlsEl.querySelector(".step-label").textContent = t("step.label", { i: this.index + 1, n: this.count })
      + (this.iterationLabel ? ` · ${this.iterationLabel}` : "");
    this.renderDetail();
    if (!silent) this.onChange?.(this.index, { playing: !!this.timer });
  }

  goForward(silent) {
    const ops = this.forwardOps();
    const cur = ops[this.index];
    const edges = this.graph.forward.edges;
    const inputs = edges.filter((e) => e.dst === cur.id).map((e) => e.src);
    this.fv.setClass("done", ops.slice(0, this.index).map((n) => n.id));
    this.fv.setClass("current", [cur.id]);
    this.fv.setClass("linked", inputs);
    this.bv.setClass("done", []);
    this.bv.setClass("current", []);
    this.bv.setClass("linked", (this.graph.backward?.nodes || []).filter((b) => b.forward_node === cur.id).map((b) => b.id));
    this.fv.centerOn(cur.id);
    this.slider.value = this.index;
    this.controlsEl.querySelector(".step-label").textContent = t("step.label", { i: this.index + 1, n: this.count });
    const byId = new Map(this.graph.forward.nodes.map((n) => [n.id, n]));
    const name = (n) => (n.name || n.label || n.op).split("\n")[0];
    show(this.detail, html`
      <div class="step-title">${t("step.forward_title", { i: this.index + 1, n: this.count })} <code>${cur.op}</code></div>
      ${cur.line ? html`<div class="muted">${t("inspector.line_n", { n: cur.line })}</div>` : ""}
      <section><h4>${t("step.inputs")}</h4>${inputs.length ? inputs.map((id) => tensorHTML(byId.get(id)?.value, { label: name(byId.get(id) || { op: id }) })) : "—"}</section>
      ${cur.formula ? html`<section><h4>${t("step.computes")}</h4><code class="rule">${tOp(cur.formula)}</code></section>` : ""}
      <section><h4>${t("step.output")}</h4>${tensorHTML(cur.value, { label: cur.name || "" })}</section>
      ${cur.grad_fn ? html`<div class="muted small">${t("step.records", { grad_fn: cur.grad_fn })}</div>` : ""}`);
    if (!silent) this.onChange?.(this.index, { playing: !!this.timer });
  }

  play() {
    if (!this.count) return;
    if (this.index >= this.count - 1) this.go(0);
    show(this.controlsEl.querySelector(".play"), PAUSE_ICON());
    this.timer = setInterval(() => {
      if (this.index >= this.count - 1) { this.pause(); return; }
      this.go(this.index + 1);
    }, PLAY_MS);
  }

  pause() {
    clearInterval(this.timer);
    this.timer = null;
    const b = this.controlsEl.querySelector(".play");
    if (b) show(b, PLAY_ICON());
  }

  nodeName(fid) {
    const n = this.graph.forward.nodes.find((x) => x.id === fid);
    return n ? (n.name || n.label || n.op).split("\n")[0] : fid;
  }

  backwardLabel(bid) {
    const n = this.graph.backward.nodes.find((x) => x.id === bid);
    return n ? n.label.split("\n").join(" ") : bid;
  }

  /** Leaf gradients after the steps up to and including the current one, by forward node id. */
  leafGradients() {
    const acc = new Map();
    for (const s of this.graph.steps.slice(0, this.index + 1)) {
      if (s.op !== "AccumulateGrad") continue;
      const sum = addInto(acc.get(s.forward_node), s.grad_in?.[0]);
      acc.delete(s.forward_node);          // re-insert: the map's order is "last touched"
      acc.set(s.forward_node, sum);
    }
    return acc;
  }

  renderDetail() {
    if (!this.count || this.mode === "forward") return;
    const s = this.graph.steps[this.index];
    const hidden = this.predict && !this.revealed.has(this.index);
    const outs = (s.grad_out || []).map((g, k) => ({ g, k, target: s.targets?.[k] })).filter((o) => o.g);
    // a step past the record's budget of step gradients carries none (its graph's warnings say why)
    const sends = s.grad_in === null ? html`<div class="muted step-bare">${t("step.not_recorded")}</div>` : outs.length ? outs.map((o, j) => {
      const to = o.target ? this.backwardLabel(o.target) : t("step.no_target");
      if (hidden) return html`<div class="send"><div class="muted">→ ${to}</div>
        <input class="guess" data-j="${j}" placeholder="${t("step.guess_placeholder")}" value="${this.guesses[`${this.index}:${j}`] || ""}"></div>`;
      const guess = this.guesses[`${this.index}:${j}`];
      return html`<div class="send">${tensorHTML(o.g, { label: `→ ${to}` })}${guess ? this.verdictHTML(guess, o.g, s, o.k, s.grad_out.length) : ""}</div>`;
    }) : html`<div class="muted">${s.op === "AccumulateGrad" ? t("step.accumulates", { name: this.nodeName(s.forward_node) }) : t("step.sends_nothing")}</div>`;
    // newest first: the leaf this step just added into is on top, marked
    const leaves = [...this.leafGradients()].reverse().map(([fid, g]) => {
      const view = tensorHTML(g, { label: `${this.nodeName(fid)}.grad` });
      if (s.op === "AccumulateGrad" && fid === s.forward_node) view.firstElementChild?.classList.add("fresh");
      return view;
    });
    show(this.detail, html`
      <div class="step-title">${t("step.title", { i: this.index + 1, n: this.count })} <code>${s.op}</code></div>
      <div class="equation">
        <section><h4>${t("step.upstream")}</h4>${tensorHTML(s.grad_in?.[0])}</section>
        <div class="op-sign" aria-hidden="true">×</div>
        <section><h4>${t("step.rule")}</h4><code class="rule">${tOp(s.rule || "")}</code></section>
        <div class="op-sign" aria-hidden="true">=</div>
        <section class="sends"><h4>${t("step.sends")}</h4>${hidden && outs.length ? html`<div class="muted small tolerance">${t("step.tolerance", { pct: GUESS_TOLERANCE * 100 })}</div>` : ""}${sends}
          ${hidden && outs.length ? html`<button class="primary reveal">${t("step.reveal")}</button>` : ""}</section>
      </div>
      <section class="leaves"><h4>${t("step.leaves")}</h4>${leaves.length ? leaves : html`<div class="muted">${t("step.no_leaves_yet")}</div>`}</section>`);
    this.detail.querySelectorAll(".guess").forEach((inp) => {
      inp.oninput = () => { this.guesses[`${this.index}:${inp.dataset.j}`] = inp.value; };
      inp.onkeydown = (e) => { if (e.key === "Enter") this.reveal(); e.stopPropagation(); };
    });
    this.detail.querySelector(".reveal")?.addEventListener("click", () => this.reveal());
  }

  /** The verdict on a revealed guess: right (within the tolerance), close with which way it is
   * off, or a miss with a hint and the rule worked through on the upstream gradient shown. */
  verdictHTML(guess, want, step, j, count) {
    const v = judgeGuess(guess, want);
    if (!v) return "";
    if (v.verdict === "right") return html`<div class="verdict"><span class="badge ok">✓ ${t("step.right")}</span> <span class="muted small">${t("step.within", { pct: GUESS_TOLERANCE * 100 })}</span></div>`;
    const hint = v.hint ? t(`step.hint_${v.hint}`, { factor: v.factor, n: v.n }) : "";
    const badge = v.verdict === "close" ? html`<span class="badge warn">≈ ${t("step.close", { guess })}</span>`
      : html`<span class="badge bad">✗ ${t("step.wrong", { guess })}</span>`;
    const rule = rulePart(tOp(step.rule), j, count);
    const answer = shortValue(want);
    const worked = rule ? html`<div class="worked small">${t("step.worked")} <code>${ruleWithUpstream(rule, step.grad_in?.[0])}</code>${
      answer !== null ? html` = <code>${answer}</code>` : ""}</div>` : "";
    return html`<div class="verdict">${badge}${hint ? html` <span class="hint">${hint}</span>` : ""}${worked}</div>`;
  }

  reveal() {
    this.revealed.add(this.index);
    this.renderDetail();
    this.detail.querySelector(".verdict")?.scrollIntoView({ block: "nearest" });
  }
}
