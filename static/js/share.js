// View state in the URL: the hash holds tab, graph, node, pass and step (counted from 1, as the
// page labels them), the stepper's walk and a training loop's iteration (`it`, as the loop counts
// it, from 0), so reload and Back show the same view;
// the query holds presenter flags (present, hide=editor,gallery) and the language.

const KEYS = ["tab", "g", "node", "step", "walk", "pass", "kernel", "pick", "it"];
const NUMERIC = new Set(["step", "pass", "it"]);

export function readHash(hash = location.hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ""));
  const state = {};
  for (const k of KEYS) {
    if (!p.has(k)) continue;
    state[k] = NUMERIC.has(k) ? Number(p.get(k)) : p.get(k);
  }
  return state;
}

export function hashOf(state) {
  const p = new URLSearchParams();
  for (const k of KEYS) if (state[k] !== undefined && state[k] !== null && state[k] !== "") p.set(k, state[k]);
  return `#${p.toString()}`;
}

/** Record the view state: push a history entry for a user's move, replace while playing. */
export function writeHash(state, { push = true } = {}) {
  const h = hashOf(state);
  if (h === location.hash || (h === "#" && !location.hash)) return;
  const url = `${location.pathname}${location.search}${h}`;
  if (push) history.pushState(null, "", url); else history.replaceState(null, "", url);
}

export function flags() {
  const q = new URLSearchParams(location.search);
  return {
    present: q.has("present") && q.get("present") !== "0",
    hide: new Set((q.get("hide") || "").split(",").filter(Boolean)),
    lang: q.get("lang"),
    // the embed page (docs/embed.md): the editor and one view, for an <iframe>
    embed: q.get("embed") === "1",
    view: q.get("view"),
  };
}

export function setQueryFlag(name, value) {
  const q = new URLSearchParams(location.search);
  if (value === null) q.delete(name); else q.set(name, value);
  const s = q.toString();
  history.replaceState(null, "", `${location.pathname}${s ? `?${s}` : ""}${location.hash}`);
}

/** Start a download of a Blob or text (export of SVG/PNG/DOT). */
export function download(content, filename, type) {
  const blob = content instanceof Blob ? content : new Blob([content], { type });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
