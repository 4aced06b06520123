// The code editor: CodeMirror 6 (vendored bundle) with Python, Run on Ctrl/Cmd+Enter, marked lines.
// Tab indents only while the page's setting says so; then, as CodeMirror's accessible convention
// has it, Escape followed by Tab still leaves the editor (the page says so under it).
import {
  EditorView, EditorState, basicSetup, python, keymap, Decoration, StateField, StateEffect, indentWithTab, Compartment,
} from "/static/vendor/codemirror.js";

const setMarks = StateEffect.define();

// Line marks by kind: "error" (the failing line), "warn" (trace warnings), "hover" (linked highlight).
const marksField = StateField.define({
  create: () => Decoration.none,
  update(marks, tr) {
    marks = marks.map(tr.changes);
    for (const e of tr.effects) if (e.is(setMarks)) marks = e.value;
    return marks;
  },
  provide: (f) => EditorView.decorations.from(f),
});

export class CodeEditor {
  constructor(parent, { onRun, onHoverLine = () => {}, tabIndents = true, describedBy = null }) {
    this.kinds = { error: [], warn: [], hover: [] };
    this.tabKeys = new Compartment();
    this.view = new EditorView({
      parent,
      state: EditorState.create({
        doc: "",
        extensions: [
          keymap.of([{ key: "Mod-Enter", run: () => { onRun(); return true; } }]),
          this.tabKeys.of(tabIndents ? keymap.of([indentWithTab]) : []),
          describedBy ? EditorView.contentAttributes.of({ "aria-describedby": describedBy }) : [],
          basicSetup, python(), marksField, EditorView.lineWrapping,
          // CodeMirror writes its theme into a <style> element: the page's CSP admits it by this
          // response's nonce (app/security_headers.py), and admits no other inline style
          EditorView.cspNonce.of(document.querySelector("meta[name=dagscope-style-nonce]")?.content || ""),
          EditorView.updateListener.of((u) => { if (u.docChanged && this.kinds.error.length) this.mark("error", []); }),
        ],
      }),
    });
    // the line under the pointer (null when it leaves): the page lights the nodes captured from it
    let hovered = null;
    const report = (line) => { if (line !== hovered) { hovered = line; onHoverLine(line); } };
    this.view.contentDOM.addEventListener("mousemove", (e) => {
      const pos = this.view.posAtCoords({ x: e.clientX, y: e.clientY });
      report(pos === null ? null : this.view.state.doc.lineAt(pos).number);
    });
    this.view.contentDOM.addEventListener("mouseleave", () => report(null));
  }

  get code() { return this.view.state.doc.toString(); }

  /** Tab (and Shift+Tab) indent when on; when off they move the focus as everywhere else. */
  setTabIndents(on) {
    this.view.dispatch({ effects: this.tabKeys.reconfigure(on ? keymap.of([indentWithTab]) : []) });
  }

  setCode(text) {
    this.kinds = { error: [], warn: [], hover: [] };
    this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: text }, effects: setMarks.of(Decoration.none) });
  }

  /** Replace the marked lines of one kind (1-based line numbers; out-of-range lines are ignored). */
  mark(kind, lines) {
    this.kinds[kind] = lines;
    const doc = this.view.state.doc;
    const ranges = [];
    for (const k of ["warn", "hover", "error"]) {
      for (const n of new Set(this.kinds[k])) {
        if (n >= 1 && n <= doc.lines) ranges.push(Decoration.line({ class: `cm-mark-${k}` }).range(doc.line(n).from));
      }
    }
    ranges.sort((a, b) => a.from - b.from);
    this.view.dispatch({ effects: setMarks.of(Decoration.set(ranges, true)) });
  }

  /** Scroll a line into view without taking the focus (a node clicked in a drawing). */
  reveal(line) {
    const doc = this.view.state.doc;
    if (!line || line < 1 || line > doc.lines) return;
    this.view.dispatch({ effects: EditorView.scrollIntoView(doc.line(line).from, { y: "nearest" }) });
  }

  /** Move the cursor to a line and scroll it into view (clicking a node's source line). */
  jumpTo(line) {
    const doc = this.view.state.doc;
    if (!line || line < 1 || line > doc.lines) return;
    const pos = doc.line(line).from;
    this.view.dispatch({ selection: { anchor: pos }, effects: EditorView.scrollIntoView(pos, { y: "center" }) });
    this.view.focus();
  }
}
