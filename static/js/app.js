// The page: wires the editor, the gallery, the tabs and their views to the run record, keeps the
// view state in the URL, and exposes window.dagscope (setCode, run, load, select, step).
import * as api from "./api.js";
import { CodeEditor } from "./editor.js";
import { panes, pngBlob, svgText, viewsOf } from "./exporter.js";
import { GraphView, drawable } from "./graphview.js";
import { setLang, t, lang, applyTo, tParts, tMessage } from "./i18n.js";
import * as identity from "./identity.js";
import { inspect, inspectIteration, setOpCards } from "./inspector.js";
import { KernelsPanel } from "./kernels.js";
import { lightMemory, showMemory } from "./memory.js";
import { errorParts, showOutput, stderrWarningLines, worded } from "./output.js";
import { showCharts } from "./charts.js";
import { PassesPanel } from "./passes.js";
import { ComparePanel } from "./compare.js";
import * as embed from "./embed.js";
import { download, flags, readHash, setQueryFlag, writeHash } from "./share.js";
import { StaticPanel, warningLine } from "./staticview.js";
import { Stepper } from "./stepper.js";
import { IterationBar, overlayAt, stepPositions, stepsAt, tensorAt, trajectoryChart, trajectoryOf } from "./training.js";
import { setTensorRun } from "./tensorview.js";
import { html, show } from "./dom.js";
import { clearMeasures, measure, now } from "./timing.js";
import { fileIdFromAddress, setupOnnxOpen } from "./onnxopen.js";
import { keepRun, keptRun } from "./keptrun.js";

const TABS = ["forward", "backward", "step", "static", "passes", "kernels", "memory", "charts", "compare", "output"];
const $ = (s) => document.querySelector(s);

const state = { record: null, graph: null, tab: "forward", node: null, step: 0, pass: null, drawn: {}, running: false, gradchecks: {}, iter: 0 };
let editor, views, stepper, passes, kernels, statics, compare, bars, examples = [];

// ---- status and toasts -----------------------------------------------------------------------

/** The status line: text, or DOM nodes (dom.js). */
function setStatus(content, kind = "") {
  const el = $("#status");
  show(el, content);
  el.className = `status ${kind}`;
}

/** A passing notice: text, or DOM nodes (dom.js). */
function toast(content, ms = 6000) {
  const el = $("#toast");
  show(el, content);
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { el.hidden = true; }, ms);
}

// ---- graphs of the record ----------------------------------------------------------------------

const graphById = (id) => state.record?.graphs?.find((g) => g.id === id) || null;

/** The graph a tab shows: the picked one when it has what the tab needs, else the first that does. */
function graphFor(tab) {
  const gs = state.record?.graphs || [];
  const has = {
    forward: (g) => g.forward, backward: (g) => g.backward, step: (g) => g.steps?.length,
    static: (g) => g.kind === "static", passes: (g) => g.passes?.length, kernels: (g) => g.kernels?.length,
    memory: (g) => g.passes?.length,
  }[tab];
  if (!has) return state.graph;
  if (state.graph && has(state.graph)) return state.graph;
  // the stepper can still walk a forward graph in execution order when no graph has backprop steps
  return gs.find(has) || (tab === "step" ? state.graph : null);
}

function fillGraphPicker() {
  const sel = $("#graph-pick");
  const gs = state.record?.graphs || [];
  show(sel, gs.map((g) => html`<option value="${g.id}">${graphTitle(g)}</option>`));
  sel.parentElement.hidden = gs.length < 2;
  if (state.graph) sel.value = state.graph.id;
}

// engine/record/dataflow.py's graph: drawn from data flow, no gradient recorded (its title says so
// in English; the page says it in its own language, above the drawing, picker or not)
const DATAFLOW = " (data flow only: no gradient recorded)";
const dataflowNames = (g) => (g?.title?.endsWith(DATAFLOW) ? g.title.slice(0, -DATAFLOW.length) : null);

function graphTitle(g) {
  const names = dataflowNames(g);
  return names !== null ? t("dataflow.title", { names }) : tMessage(g.title_message, g.title || g.id);
}

function dataflowBanner(g) {
  const names = dataflowNames(g);
  if (names === null) return null;
  const cut = /the (\d+) ops nearest them are drawn/.exec((g.warnings || []).join(" "));
  return html`<strong>${t("dataflow.title", { names })}</strong> ${t("dataflow.note")}${cut ? ` ${t("dataflow.cut", { n: cut[1] })}` : ""}`;
}

function explain(kind) {
  const failed = failedRun();
  if (failed) return failed;
  const key = state.record ? `empty.${kind}` : "empty.not_run";
  return html`<div class="empty-state"><h3>${t(`${key}_title`)}</h3><p>${t(key)}</p></div>`;
}

/** Why a failed run shows no graph (Python could not read the program, or it stopped before
 * recording one), or null when the run recorded graphs or did not fail. */
function failedRun() {
  const err = state.record?.error;
  if (!err || state.record.graphs?.length) return null;
  const key = err.kind === "syntax_error" ? "empty.syntax" : "empty.failed";
  const params = { type: err.type || "Error", line: err.line ?? "?",
                   message: worded(err) ? tMessage(err.wording, err.message || "") : err.message || "" };
  return html`<div class="empty-state"><h3>${t(`${key}_title`)}</h3><p>${t(err.line ? key : `${key}_noline`, params)}</p></div>`;
}

/** Draw what the tab shows, once per graph (a redraw happens only when the record changes). */
async function drawTab(tab) {
  const g = graphFor(tab);
  const key = `${tab}:${g?.id ?? "-"}`;
  if (state.drawn[tab] === key) return;
  state.drawn[tab] = key;
  if (g && $("#graph-pick").value !== g.id) $("#graph-pick").value = g.id;   // show which graph this tab draws
  switch (tab) {
    case "forward":
      views.forward.setBanner(g?.forward ? dataflowBanner(g) : null);
      if (g?.forward) await views.forward.show(g.forward); else views.forward.showMessage(explain("forward"));
      bars.forward.load(trajectoryOf(g), state.iter);
      paintIteration();
      break;
    case "backward":
      if (g?.backward) await views.backward.show(g.backward); else views.backward.showMessage(explain("backward"));
      bars.backward.load(trajectoryOf(g), state.iter);
      paintIteration();
      break;
    case "step": {
      await stepper.load(g, state.step || 0, { why: failedRun() });
      const tr = g?.steps?.length ? trajectoryOf(g) : null;
      if (tr) state.iter = nearest(stepPositions(tr), state.iter);
      bars.step.load(tr, state.iter, tr ? stepPositions(tr) : null);
      paintIteration();
      lightDags(identity.current());
      break;
    }
    case "static": await statics.show(state.record, g); break;
    case "passes": await passes.show(g, state.pass); break;
    case "kernels": await kernels.show(g); break;
    case "memory": showMemory($("#panel-memory"), g); break;
    case "charts": showCharts($("#panel-charts"), state.record); break;
    case "output": showOutput($("#panel-output"), state.record, { onLine: (n) => editor.jumpTo(n) }); break;
    case "compare": await compare.show(state.previous, { record: state.record, code: state.recordCode }, g); break;
  }
}

// ---- tabs, selection and linking -----------------------------------------------------------------

async function select(tab, { push = true } = {}) {
  if (!TABS.includes(tab)) throw new Error(`unknown tab ${tab}`);
  state.tab = tab;
  // the tab strip is one stop for Tab (the selected tab); arrows move within it (WAI-ARIA tabs)
  document.querySelectorAll("[data-tab]").forEach((b) => {
    b.setAttribute("aria-selected", String(b.dataset.tab === tab));
    b.tabIndex = b.dataset.tab === tab ? 0 : -1;
  });
  document.querySelectorAll("[data-panel]").forEach((p) => { p.hidden = p.dataset.panel !== tab; });
  await drawTab(tab);
  if (["forward", "backward", "step"].includes(tab)) paintIteration();
  if (state.tab === tab) saveHash(push);   // once drawn: the entry names the step or pass it shows
}

function forwardNode(g, id) { return g?.forward?.nodes.find((n) => n.id === id) || null; }
function backwardNode(g, id) { return g?.backward?.nodes.find((n) => n.id === id) || null; }

/**
 * Select a node in either DAG and light its partners in the other one. A captured graph's
 * backward may reuse forward ids ("output"), so the side is part of the selection; in the URL a
 * backward node is written "b:<id>".
 */
function selectNode(id, { push = true, side = null } = {}) {
  if (id?.startsWith("b:")) { side = "backward"; id = id.slice(2); }
  const g = graphFor("forward");
  const fwd = side !== "backward" ? forwardNode(g, id) : null;
  const bwd = side !== "forward" && !fwd ? backwardNode(g, id) : null;
  state.node = bwd ? `b:${id}` : id;
  const fid = fwd ? id : bwd?.forward_node ?? null;
  const bids = (g?.backward?.nodes || []).filter((n) => fid && n.forward_node === fid).map((n) => n.id);
  const saved = (g?.forward?.edges || []).filter((e) => e.dst === fid).map((e) => e.src);
  views.forward.setClass("sel", fwd ? [id] : []);
  views.forward.setClass("linked", !fwd && fid ? [fid] : []);
  views.forward.setClass("saved", saved);
  views.backward.setClass("sel", bwd ? [id] : []);
  views.backward.setClass("linked", fwd ? bids : bids.filter((b) => b !== id));
  state.inspected = { g, fwd, bwd, fid, bids };
  showInspectors();
  // the page's identity: its source line in the editor, and in Static, Passes and Kernels when
  // this graph was captured (the DAG tabs draw its captured nodes, stage 0)
  const line = (fwd || bwd)?.line ?? null;
  if (g && (fwd || bwd)) {
    pickingInDag = true;
    try { identity.pick({ graph: g.id, side: fwd ? "forward" : "backward", stage: 0, ids: [id], line }); } finally { pickingInDag = false; }
  } else {
    editor.mark("hover", line ? [line] : []);
  }
  saveHash(push);
}

/** The gradients flowing through a backward node: its step's gradient in, and each gradient out
 * with the node it goes to (the graph's recorded backprop, iteration 0), or null. */
function flowOf(g, bnode) {
  if (!bnode) return null;
  const step = (g.steps || []).find((s) => (s.nodes || [s.node]).includes(bnode.id));
  if (!step || (!step.grad_in && !step.grad_out)) return null;
  const name = (id) => { const n = id && backwardNode(g, id); return n ? String(n.label || n.op).split("\n")[0] : id || "—"; };
  return { grad_in: step.grad_in?.[0] || null,
           grad_out: (step.grad_out || []).map((tensor, j) => ({ tensor, to: name(step.targets?.[j]) })).filter((o) => o.tensor) };
}

/** The DAG tabs' inspectors for the selected node, at the training iteration shown (state.iter). */
function showInspectors({ playing = false } = {}) {
  const { g, fwd, bwd, fid, bids } = state.inspected || {};
  if (!g) return;
  const common = { onLine: (n) => editor.jumpTo(n),
                   onLinked: (other) => selectNode(other, { side: fwd ? "backward" : "forward" }),
                   onGradcheck: (n) => gradcheck(n), gradcheck: state.gradchecks[fid] };
  const fnode = fwd || forwardNode(g, fid);
  const tr = trajectoryOf(g);
  const at = (node) => {
    if (!tr || !node) return { node, iteration: null };
    const k = state.iter;
    // while playing, a large tensor is shown from its summary (no request per frame)
    const value = k ? tensorAt(tr, node, "value", k, { fetch: !playing }) : node.value;
    const grad = k ? tensorAt(tr, node, "grad", k, { fetch: !playing }) : node.grad;
    const charts = ["value", "grad"].map((of) => trajectoryChart(tr, node.id, of, of === "value" ? "mean" : "std", k)).filter(Boolean);
    return { node: { ...node, value: value ?? (k ? null : node.value), grad: grad ?? (k ? null : node.grad) },
             iteration: { head: html`<div class="iter-note muted small">${t("train.inspector_at", { i: tr.iterations[k] })}</div>`,
                          charts: charts.length ? html`<h4>${t("train.trajectory")}</h4>${charts}` : "",
                          // (value_after is the run's end, after every iteration's step, not this one's)
                          after: t("train.value_at_end", { n: tr.total }) } };
  };
  const shown = at(fnode);
  // a scrubbed frame writes only what the iteration changes (inspector.js inspectIteration)
  if (!(playing && shown.node && inspectIteration($("#inspector-forward"), shown.node, shown.iteration))) {
    inspect($("#inspector-forward"), shown.node, { ...common, role: "forward", linked: bids, iteration: shown.iteration });
  }
  // scrubbing (`playing`: scrubTo, after a selection built both) moves only the forward node's
  // values: the backward node's (its flow in the drawn call) is not rebuilt each frame
  if (playing) return;
  const bnode = bwd || (bids.length ? backwardNode(g, bids[0]) : null) || null;
  inspect($("#inspector-backward"), bnode, { ...common, role: "backward", linked: fid ? [fid] : [], flow: flowOf(g, bnode) });
}

// ---- training iterations (a graph's trajectory: training.js) ------------------------------------

/** The position among `positions` nearest k (the Step tab moves over the iterations with steps). */
function nearest(positions, k) {
  return positions.reduce((best, p) => (Math.abs(p - k) < Math.abs(best - k) ? p : best), positions[0] ?? 0);
}

/** Show iteration position k everywhere: the bars, the values painted on both DAGs, the
 * inspectors and (on Step) that iteration's backprop. Values only: nothing is laid out again. */
function scrubTo(k, { playing = false } = {}) {
  const tr = trajectoryOf(graphFor(state.tab === "step" ? "step" : "forward"));
  if (!tr || !Number.isInteger(k) || k < 0 || k >= tr.iterations.length) return;
  state.iter = k;
  paintIteration();
  // the inspector at once from the record; a large tensor's heat-map is asked of the server only
  // once the slider rests (not once per frame of a drag or of Play)
  clearTimeout(scrubTo.rest);
  if (state.node) {
    showInspectors({ playing: true });
    if (!playing) scrubTo.rest = setTimeout(() => { if (state.node) showInspectors(); }, 300);
  }
  // the address follows in place once the slider rests: a drag or Play is one view for Back, and
  // Chromium throttles a page that rewrites its address every frame (tens of ms per call)
  clearTimeout(scrubTo.hash);
  scrubTo.hash = setTimeout(() => saveHash(false), 250);
}

function paintIteration() {
  const g = graphFor("forward");
  const tr = trajectoryOf(g);
  if (state.iter && (!tr || state.iter >= tr.iterations.length)) state.iter = 0;
  const sg = stepper.graph;
  const str = sg?.steps?.length ? trajectoryOf(graphById(sg.id)) : null;
  // Step backprops the iterations whose steps were kept: the one nearest is shown everywhere
  if (str && state.tab === "step") state.iter = nearest(stepPositions(str), state.iter);
  for (const bar of [bars.forward, bars.backward]) bar.set(state.iter);
  views.forward.setOverlay(tr && g.forward ? overlayAt(tr, g.forward, state.iter, "forward") : null);
  views.backward.setOverlay(tr && g.backward ? overlayAt(tr, g.backward, state.iter, "backward") : null);
  if (str) {
    bars.step.set(state.iter);
    const steps = stepsAt(graphById(sg.id), str, state.iter);
    if (steps) stepper.setSteps(steps, t("train.step_iteration", { i: str.iterations[state.iter] }));
  }
}

/**
 * Finite differences against autograd for one leaf: the code runs again with the `gradcheck`
 * option and the engine reports {ok, max_abs_err} on that leaf's forward node.
 */
async function gradcheck(node) {
  const id = node.id;
  state.gradchecks[id] = "running";
  selectNode(state.node, { push: false });
  let result = "unavailable";
  try {
    const rec = await api.runCode(editor.code, { gradcheck: true });
    const g = (rec.graphs || []).find((x) => x.id === graphFor("forward")?.id) || rec.graphs?.[0];
    result = forwardNode(g, id)?.gradcheck || "unavailable";
  } catch { /* the badge says it is unavailable */ }
  state.gradchecks[id] = result;
  if (state.node) selectNode(state.node, { push: false });
}

/** Forget the DAG tabs' own selection (its classes and the inspectors), not the page's identity. */
function clearDagSelection() {
  state.node = null;
  state.inspected = null;
  for (const v of [views.forward, views.backward]) for (const c of ["sel", "linked", "saved"]) v.setClass(c, []);
  inspect($("#inspector-forward"), null, {});
  inspect($("#inspector-backward"), null, {});
}

function clearSelection() {
  clearDagSelection();
  identity.reset();
}

let pickingInDag = false;   // selectNode's own pick: it keeps `state.node` (the DAG tabs' selection)

/** The identity's source lines marked in the editor (revealed when picked), and its values in
 * the Memory tab; the other tabs light it themselves (identity.subscribe). */
function showIdentity(ident, reason) {
  if (reason === "pick" && !pickingInDag && state.node) clearDagSelection();   // a pick elsewhere replaces the DAG's
  const g = ident ? graphById(ident.graph) : null;
  const lines = identity.linesOf(g, ident);
  if (String(lines) !== String(editor.kinds.hover)) editor.mark("hover", lines);
  if (reason === "pick" && lines.length) editor.reveal(lines[0]);
  if (reason === "pick" && ident && !pickingInDag) saveHash(true);
  lightMemory($("#panel-memory"), graphFor("memory"), ident);
}

/**
 * The identity in the autograd DAGs of Forward, Backward and Step: the nodes it names and their
 * partners across (identity.dagIds). Classes only, so a hover never redraws; a view drawn later
 * paints the classes it was given.
 */
function lightDags(ident) {
  views.forward.setClass("ident", identity.dagIds(graphFor("forward"), ident).forward);
  views.backward.setClass("ident", identity.dagIds(graphFor("backward"), ident).backward);
  const inStep = identity.dagIds(stepper.graph, ident);
  views.stepForward.setClass("ident", inStep.forward);
  views.stepBackward.setClass("ident", inStep.backward);
}

/** The identity of a node under the pointer (or clicked) in a DAG of `g`, or null. */
function dagIdent(g, side, id) {
  const node = id && g ? (side === "forward" ? forwardNode(g, id) : backwardNode(g, id)) : null;
  return node ? { graph: g.id, side, stage: 0, ids: [id], line: node.line ?? null } : null;
}

/** Pointing at a line of the code: the nodes of the current tab's graph computed on it light up. */
function hoverLine(line) {
  const g = state.tab === "step" ? stepper.graph : state.tab === "output" ? null : graphFor(state.tab);
  identity.hover(identity.lineIdent(g, line));
}

// ---- URL state ------------------------------------------------------------------------------------

// In the URL, step and pass count from 1, as the page labels them ("step 2 / 3", "2. dce").
function viewState() {
  const stepping = state.tab === "step" && stepper.count;
  return { tab: state.tab, g: state.graph?.id, node: state.node, step: stepping ? stepper.index + 1 : undefined,
           walk: stepping && stepper.mode === "forward" && stepper.canBackprop ? "forward" : undefined,
           pass: state.tab === "passes" && passes.graph?.passes?.length ? passes.index + 1 : undefined,
           it: ["forward", "backward", "step"].includes(state.tab) && state.iter
             ? trajectoryOf(graphFor(state.tab))?.iterations[state.iter] : undefined,
           // a node picked in Static, Passes, Kernels or Memory (a DAG tab's pick is `node`)
           pick: state.node ? undefined : identity.encode() ?? undefined };
}

function saveHash(push) { if (!saveHash.muted) writeHash(viewState(), { push }); }

/** Show the view a URL describes (a link opened, reload, Back/Forward); the address is then
 * rewritten in place to what is shown (the same, unless the URL named something the record lacks). */
async function applyState(s) {
  const wasMuted = saveHash.muted;
  saveHash.muted = true;
  const step = Number.isInteger(s.step) && s.step >= 1 ? s.step - 1 : null;
  const pass = Number.isInteger(s.pass) && s.pass >= 1 ? s.pass - 1 : null;
  try {
    if (s.g && graphById(s.g) && state.graph?.id !== s.g) { state.graph = graphById(s.g); state.drawn = {}; fillGraphPicker(); }
    if (step !== null) state.step = step;
    if (pass !== null) state.pass = pass;
    // a training iteration, as the loop counts it (one the record did not keep shows iteration 0)
    const tr = trajectoryOf(graphFor(s.tab && TABS.includes(s.tab) ? s.tab : state.tab));
    state.iter = tr && Number.isInteger(s.it) ? Math.max(0, tr.iterations.indexOf(s.it)) : 0;
    await select(s.tab && TABS.includes(s.tab) ? s.tab : state.tab, { push: false });
    paintIteration();
    if (state.tab === "step") {
      const walk = s.walk === "forward" || !stepper.canBackprop ? "forward" : "backward";
      if (stepper.mode !== walk && stepper.graph) stepper.setMode(walk);
      stepper.go(step ?? 0, { silent: true });
      state.step = stepper.index;
    }
    if (state.tab === "passes" && pass !== null && passes.graph && passes.index !== pass) await passes.select(pass, { silent: true });
    if (s.node) {
      await Promise.all([drawTab("forward"), drawTab("backward")]);
      selectNode(s.node, { push: false });
    } else if (s.pick && identity.decode(s.pick) && graphById(identity.decode(s.pick).graph)) {
      identity.pick(identity.decode(s.pick));
    } else if (identity.encode()) {
      identity.reset();          // back to a view state without a pick
    }
  } finally {
    saveHash.muted = wasMuted;
  }
  saveHash(false);
}

// ---- running ---------------------------------------------------------------------------------------

/** Show a run record: every tab redraws from it; resolves once the current tab (and both DAGs) are drawn. */
async function load(record, { ran = false } = {}) {
  state.record = record;
  setTensorRun(record.run_id);           // large tensors' heat-maps come from this run's kept values
  state.graph = (record.graphs || []).find((g) => g.backward) || record.graphs?.[0] || null;
  state.drawn = {};
  state.node = null;
  state.step = 0;
  state.pass = null;
  state.gradchecks = {};
  state.iter = 0;
  fillGraphPicker();
  clearSelection();
  const err = record.error;
  editor.mark("error", err?.line ? [err.line] : []);
  // the trace's notices and Python's warnings on stderr (`<dagscope>:7: UserWarning`) mark their lines alike
  const noticeLines = [...(record.warnings || []), ...(record.graphs || []).flatMap((g) => g.warnings || [])].map(warningLine);
  editor.mark("warn", [...new Set([...noticeLines, ...stderrWarningLines(record)].filter(Boolean))]);
  showOutputDot(err ? "error" : record.stderr ? "stderr" : null);
  if (err?.kind === "stopped") setStatus(t("status.stopped", { s: ((record.elapsed_ms ?? 0) / 1000).toFixed(1) }), "bad");
  // what Python raised is shown as it raised it (code), in the page's words around it
  // the server's and engine's own messages in the page's words (their `wording`: output.js)
  else if (err && worded(err)) setStatus(tParts("status.failed", { message: html`${errorParts(err, record)}` }), "bad");
  else if (err) setStatus(tParts("status.failed", { message: html`<code class="quoted">${err.type ? `${err.type}: ` : ""}${err.message}</code>` }), "bad");
  else if (ran) setStatus(t("status.ok", { ms: Math.round(record.elapsed_ms ?? 0), graphs: record.graphs?.length ?? 0 }), "ok");
  else setStatus(t("status.loaded", { graphs: record.graphs?.length ?? 0 }), "ok");
  if (err && !record.graphs?.length) state.tab = "output";
  else if (!record.graphs?.length) state.tab = "output";
  else if (state.tab === "output" || !graphFor(state.tab)) state.tab = "forward";
  await Promise.all([drawTab("forward"), drawTab("backward"), select(state.tab, { push: false })]);
  return record;
}

let running = null;
let shown = 0;   // counts runs and loads: only the newest may fill the page
let stopKey = null;   // the going run's stop key (api.newStopKey), while Stop is shown
async function run() {
  if (running) await running.catch(() => {});   // one run at a time; the newest code wins
  const btn = $("#run");
  btn.disabled = true;
  state.running = true;
  setStatus(t("status.running"), "busy");
  const key = api.newStopKey();
  stopKey = key;
  $("#stop").hidden = false;
  $("#stop").disabled = false;
  running = (async () => {
    try {
      const mine = ++shown;
      const code = editor.code;
      clearMeasures();
      let t0 = now();
      const record = await api.runCode(code, {}, { stopKey: key, onWait: (s) => setStatus(t("status.busy_retry", { s }), "busy") });
      measure("run", t0);
      // a record loaded meanwhile (dagscope.load) wins over this older run
      if (mine !== shown) return record;
      // the run shown until now is the one Compare sets beside this one (a run, not a loaded record)
      if (state.record && typeof state.recordCode === "string") state.previous = { record: state.record, code: state.recordCode };
      state.recordCode = code;   // which code the shown record came from (share links, tests)
      t0 = now();
      await load(record, { ran: true });
      measure("load", t0);
      keepRun(code, record);     // Compare's previous run after a reload of this tab
      return record;
    } catch (e) {
      setStatus(t("status.request_failed", { message: e.message }), "bad");
      throw e;
    } finally {
      btn.disabled = false;
      state.running = false;
      running = null;
      stopKey = null;
      $("#stop").hidden = true;
    }
  })();
  return running;
}

/** Stop: the server kills the run; its answer (a `stopped` record) arrives through run(). */
async function stop() {
  if (!stopKey) return;
  $("#stop").disabled = true;
  setStatus(t("status.stopping"), "busy");
  try { await api.stopRun(stopKey); } catch { /* the run's own answer says how it ended */ }
}

// ---- gallery, share, export, presenter --------------------------------------------------------------

/** An example's concept tag in the page's language (the catalog's "concept.<tag>"; a tag it lacks as written). */
function conceptLabel(tag) {
  const key = `concept.${tag}`;
  const text = t(key);
  return text === key ? tag : text;
}

/** An example's code in the page's language (its comments translated; the program the same). */
const exampleCode = (ex) => (lang === "zh-CN" && ex.code_zh ? ex.code_zh : ex.code);

/** The language changed: an example still as the gallery gave it is shown with the new comments. */
function relanguageExample() {
  const ex = examples.find((e) => editor.code === e.code || editor.code === e.code_zh);
  if (ex && editor.code !== exampleCode(ex)) {
    editor.setCode(exampleCode(ex));
    if (state.recordCode === ex.code || state.recordCode === ex.code_zh) state.recordCode = exampleCode(ex);
  }
}

function renderGallery() {
  show($("#gallery"), examples.map((ex) => html`<li><button class="example" data-id="${ex.id}" title="${(lang === "zh-CN" && ex.summary_zh) || ex.summary || ""}">
      <span class="ex-title">${lang === "zh-CN" && ex.title_zh ? ex.title_zh : ex.title}</span>
      <span class="ex-tags">${ex.concepts.slice(0, 3).map((c) => html`<span class="tag">${conceptLabel(c)}</span>`)}</span></button></li>`));
  document.querySelectorAll(".example").forEach((b) => {
    b.onclick = () => {
      const ex = examples.find((e) => e.id === b.dataset.id);
      editor.setCode(exampleCode(ex));
      run().catch(() => {});
    };
  });
}

async function share() {
  try {
    const { url } = await api.share(editor.code, viewState());
    const full = `${location.origin}${url}${location.hash}`;
    window.dagscope.lastShareUrl = full;
    try { await navigator.clipboard.writeText(full); } catch { /* clipboard may be unavailable; the link is shown */ }
    toast(html`${t("share.done")} <a href="${url}${location.hash}">${full}</a>`);
  } catch (e) {
    toast(t("share.failed", { message: e.message }));
  }
}

/** Export what the tab shows: every drawn pane, with its marks (exporter.js). */
async function exportGraph(format) {
  const shown = panes($(`.panel[data-panel="${state.tab}"]`));
  if (!shown.length) { toast(t("export.nothing")); return; }
  try {
    if (format === "svg") {
      download(svgText(shown), `dagscope-${state.tab}.svg`, "image/svg+xml");
    } else if (format === "png") {
      download(await pngBlob(shown), `dagscope-${state.tab}.png`, "image/png");
    } else {
      // one digraph per pane, in the order shown (dot reads a file of several)
      const parts = await Promise.all(viewsOf(shown).map(async ({ view, title }) => {
        const out = await api.render(drawable(view.layout?.graph || view.shown.graph), "dot", view.layout?.direction || "TB");
        return `${title ? `// ${title.replace(/[\r\n]/g, " ")}\n` : ""}${typeof out === "string" ? out : await out.text()}`;
      }));
      download(parts.join("\n"), `dagscope-${state.tab}.dot`, "text/vnd.graphviz");
    }
  } catch (e) {
    toast(t("export.failed", { message: e.message }));
  }
}

/** The Output tab's dot: red for a failed run, amber for a run that wrote to stderr (warnings). */
function showOutputDot(kind) {
  const dot = $("#output-dot");
  dot.hidden = !kind;
  dot.classList.toggle("dot-warn", kind === "stderr");
  dot.title = kind ? t(`output.dot_${kind}`) : "";
}

/**
 * Presentation mode (large type, high contrast). `?present=1` in the URL opens a page presenting;
 * the Present button, Escape and the Exit button switch it in place: the query is rewritten
 * without a reload or a history entry, so Back still walks the view states, not the mode.
 */
function applyPresenter(on) {
  document.body.classList.toggle("present", on);
  $("#present").setAttribute("aria-pressed", String(on));
}

function setPresenter(on) {
  const focused = document.activeElement;
  applyPresenter(on);
  setQueryFlag("present", on ? "1" : null);
  // the button that had the focus is hidden now: give it to the one that takes its place, so the
  // keyboard is not left on an invisible control (Escape and the stepper's arrows work from either)
  if (focused === $("#present") && on) focused.blur();
  if (focused === $("#present-exit") && !on) $("#present").focus();
}

function onKey(e) {
  const target = e.target;
  // Escape leaves presentation from anywhere, the editor too, unless the editor used it itself
  // (closing its completion or search panel)
  if (e.key === "Escape" && document.body.classList.contains("present") && !e.defaultPrevented) {
    setPresenter(false);
    e.preventDefault();
    return;
  }
  if (target.closest?.(".cm-editor, input, textarea, select")) return;
  if (target.getAttribute?.("role") === "tab") { tabKey(e); return; }
  // the Step and Passes views take the arrows while the focus is in them (or on nothing)
  const focusIn = (tab) => state.tab === tab && (target === document.body || target.closest?.(`[data-panel="${tab}"]`));
  if (focusIn("step") && stepper.count) {
    if (e.key === "ArrowRight") { stepper.pause(); stepper.go(stepper.index + 1); e.preventDefault(); }
    if (e.key === "ArrowLeft") { stepper.pause(); stepper.go(stepper.index - 1); e.preventDefault(); }
    // space on a focused button is that button's own click (Next steps once; Play plays)
    if (e.key === " " && !target.closest("button, a, summary, [role=button]")) {
      stepper.timer ? stepper.pause() : stepper.play();
      e.preventDefault();
    }
  }
  if (focusIn("passes")) {
    if (e.key === "ArrowDown" || e.key === "ArrowRight") { passes.move(1); e.preventDefault(); }
    if (e.key === "ArrowUp" || e.key === "ArrowLeft") { passes.move(-1); e.preventDefault(); }
  }
}

/** The tab strip as WAI-ARIA's tabs pattern: ← → (wrapping), Home and End move the focus along
 * it and show that tab (automatic activation); the focus stays in the strip. */
function tabKey(e) {
  const visible = TABS.filter((tab) => !document.querySelector(`[data-tab="${tab}"]`).closest("[hidden]")
    && document.querySelector(`[data-tab="${tab}"]`).offsetParent !== null);
  const at = visible.indexOf(state.tab);
  const to = { ArrowRight: visible[(at + 1) % visible.length], ArrowLeft: visible[(at - 1 + visible.length) % visible.length],
               Home: visible[0], End: visible[visible.length - 1] }[e.key];
  if (!to) return;
  e.preventDefault();
  select(to);
  document.querySelector(`[data-tab="${to}"]`).focus();
}

// ---- start ------------------------------------------------------------------------------------------

async function start() {
  const f = flags();
  // an embedded page's one-time ticket (app/services/embed_tickets.py) has been spent: off the address
  if (new URLSearchParams(location.search).has("ticket")) setQueryFlag("ticket", null);
  await setLang(f.lang || localStorage.getItem("dagscope.lang") || (navigator.language?.startsWith("zh") ? "zh-CN" : "en"));
  $("#lang").value = lang;
  applyPresenter(f.present);
  for (const part of f.hide) document.body.classList.add(`hide-${part}`);
  // the embed page: the editor and one view (?view=, else the address's tab, else Forward)
  if (f.embed) {
    document.body.classList.add("embed", "hide-gallery", "hide-tabs");
    const open = new URLSearchParams(location.search);
    open.delete("embed");
    open.delete("view");
    $("#embed-open").href = `${location.pathname}${open.toString() ? `?${open}` : ""}${location.hash}`;
  }

  // Tab in the editor: indenting is a setting the page keeps (localStorage); the hint under the
  // editor says how the keyboard leaves it either way
  const tabIndents = localStorage.getItem("dagscope.tabIndents") !== "0";
  editor = new CodeEditor($("#editor"), { onRun: () => run().catch(() => {}), onHoverLine: hoverLine,
                                          tabIndents, describedBy: "editor-hint" });
  const showTabHint = (on) => {
    $("#editor-hint").dataset.i18n = on ? "editor.tab_hint" : "editor.tab_hint_off";
    $("#editor-hint").textContent = t($("#editor-hint").dataset.i18n);
  };
  $("#tab-indents").checked = tabIndents;
  showTabHint(tabIndents);
  $("#tab-indents").onchange = (e) => {
    localStorage.setItem("dagscope.tabIndents", e.target.checked ? "1" : "0");
    editor.setTabIndents(e.target.checked);
    showTabHint(e.target.checked);
  };
  identity.subscribe(showIdentity);
  identity.subscribe(lightDags);
  const onSelect = (side) => (id) => (id ? selectNode(id, { side }) : clearSelection());
  const onHover = (side, graphOf) => (id) => identity.hover(dagIdent(graphOf(), side, id));
  // a node clicked in the stepper's drawings is the page's pick (one history entry with the step)
  const stepPick = (side, id) => {
    const ident = dagIdent(stepper.graph, side, id);
    if (!ident) return;
    saveHash.muted = true;
    try { identity.pick(ident); } finally { saveHash.muted = false; }
    // and the step that handles it: its backward node, or (walking forward) its op
    const i = stepper.mode === "backward" ? (side === "backward" ? stepper.graph.steps.findIndex((s) => (s.nodes || [s.node]).includes(id)) : -1)
      : side === "forward" ? stepper.forwardOps().findIndex((n) => n.id === id) : -1;
    if (i >= 0) stepper.go(i); else saveHash(true);
  };
  views = {
    forward: new GraphView($("#view-forward"), { onSelect: onSelect("forward"), onHover: onHover("forward", () => graphFor("forward")) }),
    backward: new GraphView($("#view-backward"), { onSelect: onSelect("backward"), onHover: onHover("backward", () => graphFor("backward")) }),
    stepBackward: new GraphView($("#view-step-backward"), { compact: true, onSelect: (id) => stepPick("backward", id),
                                                            onHover: onHover("backward", () => stepper.graph) }),
    stepForward: new GraphView($("#view-step-forward"), { compact: true, onSelect: (id) => stepPick("forward", id),
                                                          onHover: onHover("forward", () => stepper.graph) }),
  };
  // a training loop's iterations: a bar over each DAG tab's drawing and under the stepper's controls
  const bar = (before) => {
    const el = document.createElement("div");
    before.before(el);
    return new IterationBar(el, { onChange: (k, { playing }) => scrubTo(k, { playing }) });
  };
  bars = { forward: bar($("#view-forward")), backward: bar($("#view-backward")), step: bar($(".step-body")) };
  stepper = new Stepper({ controls: $("#stepper-controls"), detail: $("#step-detail"), backwardView: views.stepBackward,
                          forwardView: views.stepForward,
                          onChange: (i, { playing }) => { state.step = i; saveHash(!playing); } });
  // Static, Passes, Kernels and Memory light the page's one identity (identity.js) themselves
  passes = new PassesPanel($("#panel-passes"), { onChange: (i) => { state.pass = i; saveHash(true); },
                                                 onOpenMemory: () => select("memory") });
  kernels = new KernelsPanel($("#panel-kernels"));
  compare = new ComparePanel($("#panel-compare"));
  statics = new StaticPanel($("#panel-static"), {
    onLine: (n) => editor.jumpTo(n),
    onPick: (id) => { state.graph = graphById(id); fillGraphPicker(); state.drawn.static = null; drawTab("static"); saveHash(true); },
  });

  document.querySelectorAll("[data-tab]").forEach((b) => {
    const panel = document.querySelector(`[data-panel="${b.dataset.tab}"]`);
    panel.id ||= `panel-${b.dataset.tab}`;
    b.id = `tab-${b.dataset.tab}`;
    b.setAttribute("aria-controls", panel.id);
    panel.setAttribute("aria-labelledby", b.id);
    panel.tabIndex = -1;
    // a tab clicked with the pointer hands the focus to its view, so the view's keys (the
    // stepper's arrows) work at once; a tab chosen from the keyboard keeps it (detail 0)
    b.onclick = (e) => { select(b.dataset.tab); if (e.detail > 0) panel.focus({ preventScroll: true }); };
  });
  $("#run").onclick = () => run().catch(() => {});
  $("#stop").onclick = stop;
  $("#share").onclick = share;
  document.querySelectorAll(".export").forEach((b) => { b.onclick = () => exportGraph(b.dataset.format); });
  $("#present").onclick = () => setPresenter(!document.body.classList.contains("present"));
  $("#present-exit").onclick = () => setPresenter(false);
  $("#graph-pick").onchange = (e) => { state.graph = graphById(e.target.value); state.drawn = {}; state.iter = 0; clearSelection(); select(state.tab); };
  $("#lang").onchange = async (e) => {
    localStorage.setItem("dagscope.lang", e.target.value);
    await setLang(e.target.value);
    renderGallery();
    relanguageExample();
    // views and panels build their text when drawn: rebuild them in the new language
    const keep = { ...viewState() };
    stepper.buildControls();
    if (state.record) { await load(state.record, { ran: !!state.recordCode }); await applyState(keep); }
  };
  // the side panel (inspector, step detail) folds away so the graph takes the pane's width
  const showSide = (open) => {
    document.body.classList.toggle("side-collapsed", !open);
    $("#side-toggle").setAttribute("aria-expanded", String(open));
    $("#side-toggle").dataset.i18n = open ? "side.hide" : "side.show";
    $("#side-toggle").textContent = t($("#side-toggle").dataset.i18n);
  };
  showSide(!f.embed && localStorage.getItem("dagscope.side") !== "closed");
  $("#side-toggle").onclick = () => {
    const open = document.body.classList.contains("side-collapsed");
    localStorage.setItem("dagscope.side", open ? "open" : "closed");
    showSide(open);
  };
  document.addEventListener("keydown", onKey);
  window.addEventListener("popstate", () => {
    // an entry written while presenting keeps `present=1`: the mode is the page's, so the URL follows it
    const presenting = document.body.classList.contains("present");
    if (flags().present !== presenting) setQueryFlag("present", presenting ? "1" : null);
    if (state.record) applyState(readHash());
  });

  window.dagscope = {
    setCode: (text) => editor.setCode(text),
    getCode: () => editor.code,
    run,
    load: (record) => { shown++; state.recordCode = null; return load(record); },
    select: (tab) => select(tab),
    step: (n) => { if (state.tab !== "step") return select("step").then(() => stepper.go(n)); stepper.go(n); return Promise.resolve(); },
    selectNode: (id) => selectNode(id),
    // show a training iteration (its position among the trajectory's kept ones), as the slider does
    scrub: (k) => scrubTo(k),
    identity: () => identity.current(),
    state,
    lastShareUrl: null,
  };

  if (f.embed) {
    embed.listen(JSON.parse($("#dagscope-embed").textContent || "null"),
                 { setCode: (code) => editor.setCode(code), run, select: (view) => select(view) });
  }

  // an ONNX file opened on the page (or a run's, in a View graph tab) shows as the run of its program
  const onnx = setupOnnxOpen({
    button: $("#onnx-open"), input: $("#onnx-file"), target: document.body, status: setStatus,
    show: async ({ code, record }) => {
      editor.setCode(code);
      shown++;
      state.recordCode = code;
      await load(record, { ran: true });
      if (record.graphs?.some((g) => g.capture === "onnx")) await select("static");
    },
  });
  const onnxFile = fileIdFromAddress();
  // the run shown before this tab was reloaded is the one Compare sets beside the next (keptrun.js)
  state.previous = keptRun();

  const [cards, exs] = await Promise.all([api.opCards(), api.examples()]);
  setOpCards(cards);
  examples = exs;
  renderGallery();
  const snippet = JSON.parse($("#dagscope-snippet").textContent || "null");
  const missing = JSON.parse($("#dagscope-missing").textContent || "null");
  if (missing) toast(t("share.missing", { id: missing }));
  // the address is left as it came until the view it describes is shown (a run comes first)
  const hashState = readHash();
  if (f.embed && TABS.includes(f.view)) hashState.tab = f.view;
  saveHash.muted = true;
  const restore = (s) => { saveHash.muted = false; return applyState(s); };
  if (snippet) {
    editor.setCode(snippet.code);
    await run().catch(() => {});
    await restore({ ...snippet.state, ...hashState });
  } else {
    editor.setCode(examples[0] ? exampleCode(examples[0]) : "");
    select(hashState.tab || "forward", { push: false });
  }
  applyTo(document);
  document.body.classList.add("ready");
  // a fresh page shows the first example already run, so the room sees a graph at once
  if (onnxFile && !snippet) {
    onnx.openFileId(onnxFile).finally(() => { saveHash.muted = false; });
  } else if (!snippet && examples.length) {
    run().then(() => restore(hashState)).catch(() => { saveHash.muted = false; });
  } else if (!snippet) {
    saveHash.muted = false;
  }
}

start();
