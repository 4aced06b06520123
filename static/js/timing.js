// The page's phases as User Timing measures named "dagscope:<phase>" (a run's request and its
// loading; each view's folding, layout, drawing requests and SVG insertion), so a profile or
// bench/page.py can say where Run -> drawn goes. A run clears the previous run's.

export const now = () => performance.now();

/** Record `phase` from `start` (a now()) until now; `view` says which pane it was for. */
export function measure(phase, start, view = "") {
  performance.measure(`dagscope:${phase}`, { start, end: now(), detail: view });
}

export function clearMeasures() {
  for (const m of performance.getEntriesByType("measure")) {
    if (m.name.startsWith("dagscope:")) performance.clearMeasures(m.name);
  }
}
