// A line diff of two IR texts (longest common subsequence), for the Passes tab.
import { html } from "./dom.js";

const MAX_LINES = 3000;   // beyond this the quadratic table is too big: show both texts whole

export function diffLines(a, b) {
  const x = a.split("\n"), y = b.split("\n");
  if (x.length > MAX_LINES || y.length > MAX_LINES) {
    return [...x.map((l) => ({ op: "-", text: l })), ...y.map((l) => ({ op: "+", text: l }))];
  }
  const n = x.length, m = y.length;
  const L = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) L[i][j] = x[i] === y[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  }
  const out = [];
  let i = 0, j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) { out.push({ op: " ", text: x[i] }); i++; j++; }
    else if (L[i + 1][j] >= L[i][j + 1]) out.push({ op: "-", text: x[i++] });
    else out.push({ op: "+", text: y[j++] });
  }
  while (i < n) out.push({ op: "-", text: x[i++] });
  while (j < m) out.push({ op: "+", text: y[j++] });
  return out;
}

export function diffHTML(a, b) {
  const cls = { " ": "same", "-": "del", "+": "ins" };
  return html`<pre class="ir-diff">${diffLines(a || "", b || "").map((d) =>
    html`<div class="${cls[d.op]}"><span class="sign">${d.op}</span>${d.text}</div>`)}</pre>`;
}
