// The teachers' lesson, drawn in the browser from the view of every step at every value of its control.
//
// Python (ragunc.present.lesson.lesson_view) sends one view per data choice: each step's heading, its
// control, and a figure and two sentences per value of the control, all formatted.  This module only
// picks the one for the step and value on screen and draws it: it computes no statistic.  Step 2 shows
// the first n of its precomputed dots (slices of the view's arrays).  Next, Back and the controls switch
// here; the URL follows at once, and the server hears of the state the reader pauses on.

import { loadPlotly, loadView, setQuery, theme, themed } from "./common.js";

const TELL_SERVER_MS = 400; // the pause after which the server hears of the state on screen
const PREDRAW_AFTER_MS = 300; // the pause after which the figures a next move would show are drawn, hidden
const ROOT = "ragunc-lesson";

export default function (component) {
  const { data, parentElement } = component;
  const state = parentElement.__raguncLesson;
  if (state && state.name === data.view) return; // a rerun re-sends what the reader already sees
  loadView(data.view).then((view) => {
    const now = parentElement.__raguncLesson;
    if (!now || now.name !== data.view) mount(component, view, data);
  });
}

function element(tag, attributes = {}, text = "") {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
  if (text) el.textContent = text;
  return el;
}

function skeleton(root, view) {
  root.replaceChildren();
  const top = element("div", { class: "top" });
  top.append(element("h1", {}, view.title));
  const nav = element("nav", { "aria-label": "Lesson steps" });
  const back = element("button", { type: "button", "data-go": "-1", "aria-keyshortcuts": "PageUp ArrowLeft" }, "← Back");
  const next = element(
    "button",
    { type: "button", "data-go": "1", class: "primary", "aria-keyshortcuts": "PageDown ArrowRight" },
    "Next →",
  );
  nav.append(back, next);
  top.append(nav);
  const heading = element("h2", { "aria-live": "polite" });
  const body = element("div", { class: "body" });
  const figures = element("div", { class: "figures" });
  const side = element("div", { class: "side" });
  const sentences = element("div", { class: "sentences", "aria-live": "polite" });
  const controls = element("div", { class: "controls" });
  const about = element("details");
  about.append(element("summary", {}, "About these data"), element("p", {}, view.about));
  side.append(sentences, controls, about);
  body.append(figures, side);
  root.append(top, heading, body);
  return { back, next, heading, figures, sentences, controls };
}

function control(step, index) {
  // One control per step, built once; ``read`` gives the index of its value among the view's values
  // (step 2: the number of samples shown).
  const spec = step.control;
  const id = `ragunc-lesson-${spec.param}`;
  const box = element("div", { class: `control ${spec.kind}`, "data-param": spec.param, hidden: "" });
  if (spec.kind === "toggle") {
    const label = element("label", { for: id });
    const input = element("input", { type: "checkbox", role: "switch", id, name: spec.param });
    label.append(input, element("span", {}, spec.label));
    box.append(label);
    return { box, input, read: () => (input.checked ? 1 : 0), write: (i) => (input.checked = i === 1) };
  }
  if (spec.kind === "cycle") {
    const button = element("button", { type: "button", id, name: spec.param }, spec.label);
    const said = element("output", { for: id, "aria-live": "polite" });
    box.append(button, said);
    let at = index;
    return {
      box,
      input: button,
      said,
      read: () => at,
      write: (i) => (at = i),
      next: () => (at = (at + 1) % spec.values.length),
    };
  }
  const label = element("label", { for: id });
  const said = element("output", { for: id });
  label.append(element("span", {}, spec.label), said);
  const counting = spec.kind === "count";
  const input = element("input", {
    type: "range",
    id,
    name: spec.param,
    min: counting ? spec.min : 0,
    max: counting ? spec.max : spec.values.length - 1,
    step: 1,
  });
  box.append(label, input);
  if (!counting) {
    const ends = element("div", { class: "ends", "aria-hidden": "true" });
    ends.append(element("span", {}, spec.texts[0]), element("span", {}, spec.texts[spec.texts.length - 1]));
    box.append(ends);
  }
  return { box, input, said, read: () => +input.value, write: (i) => (input.value = i) };
}

function initial(spec, text) {
  // The index of the URL value ``text`` among the control's values (step 2: the count itself).
  if (spec.kind === "count") return Math.min(Math.max(parseInt(text, 10) || spec.min, spec.min), spec.max);
  const i = spec.values.indexOf(text);
  return i >= 0 ? i : spec.default;
}

function mount(component, view, data) {
  const { parentElement, setStateValue } = component;
  let root = parentElement.querySelector(`[data-testid="${ROOT}"]`);
  if (!root) {
    root = element("section", { "data-testid": ROOT, "aria-label": view.title });
    parentElement.appendChild(root);
  }
  const parts = skeleton(root, view);
  const steps = view.steps.length;
  const state = {
    name: data.view,
    view,
    root,
    parts,
    step: Math.min(Math.max(parseInt(data.state.step, 10) || 1, 1), steps),
    figures: new Map(), // "step:value" -> {div, at: the value drawn in it (step 2: the count), or undefined}
    drawing: 0,
  };
  state.controls = view.steps.map((step) => {
    const made = control(step, initial(step.control, data.state[step.control.param]));
    made.write(initial(step.control, data.state[step.control.param]));
    parts.controls.append(made.box);
    return made;
  });
  parentElement.__raguncLesson = state;

  let sent = JSON.stringify(data.state);
  let timer = 0;
  const tell = () => {
    clearTimeout(timer);
    root.dataset.synced = "0";
    timer = setTimeout(() => {
      const now = values(state);
      const text = JSON.stringify(now);
      if (text !== sent) {
        sent = text;
        setStateValue("state", now);
      }
      root.dataset.synced = "1";
    }, TELL_SERVER_MS);
  };
  const go = (by) => {
    const to = state.step + by;
    if (to < 1 || to > steps) return;
    state.step = to;
    draw(state);
    tell();
  };
  parts.back.addEventListener("click", () => go(-1));
  parts.next.addEventListener("click", () => go(1));
  state.controls.forEach((made, i) => {
    const kind = view.steps[i].control.kind;
    if (kind === "cycle") {
      made.input.addEventListener("click", () => {
        made.next();
        draw(state);
        tell();
      });
    } else {
      made.input.addEventListener("input", () => draw(state));
      made.input.addEventListener("change", tell);
    }
  });
  // Back / Next from the keyboard (and a presentation clicker's Page Up / Page Down), except where a key
  // means something to the focused element: a slider, a switch or a button keep their keys.
  if (window.__raguncLessonKeys) document.removeEventListener("keydown", window.__raguncLessonKeys);
  window.__raguncLessonKeys = (event) => {
    if (!root.isConnected || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target.closest && target.closest("input, select, textarea, [contenteditable=true], [role=listbox]")) return;
    const by = { PageUp: -1, ArrowLeft: -1, PageDown: 1, ArrowRight: 1 }[event.key];
    if (!by) return;
    event.preventDefault();
    go(by);
  };
  document.addEventListener("keydown", window.__raguncLessonKeys);
  root.dataset.synced = "1";
  draw(state);
}

function values(state) {
  // The step and every control's value as the URL writes them.
  const out = { step: String(state.step) };
  state.view.steps.forEach((step, i) => {
    const spec = step.control;
    const at = state.controls[i].read();
    out[spec.param] = spec.kind === "count" ? String(at) : spec.values[at];
  });
  return out;
}

function shownFigure(step, at) {
  // The figure of ``step`` at its control's value ``at`` (step 2: its first ``at`` samples, sliced).
  const view = step.views[step.control.kind === "count" ? 0 : at];
  if (!view.points) return view.figure;
  const figure = structuredClone(view.figure);
  const cut = Math.max(1, at - 1); // the samples before the latest are 1 .. at - 2; the latest is at - 1
  const slice = (from, to) => Object.fromEntries(Object.entries(view.points).map(([key, v]) => [key, v.slice(from, to)]));
  Object.assign(figure.data[view.traces.others], slice(1, cut), { name: view.names[at - 1] });
  Object.assign(figure.data[view.traces.latest], slice(cut, at));
  return figure;
}

function draw(state) {
  const ticket = ++state.drawing;
  clearTimeout(state.idle);
  state.root.dataset.pending = "1";
  if (window.Plotly) paint(state, ticket, window.Plotly);
  else loadPlotly().then((Plotly) => ticket === state.drawing && paint(state, ticket, Plotly));
}

function slot(state, step, at) {
  // The figure div of ``step`` at value ``at`` (one div for step 2's count, redrawn as it moves).
  const spec = state.view.steps[step - 1].control;
  const key = spec.kind === "count" ? `${step}` : `${step}:${at}`;
  let entry = state.figures.get(key);
  if (!entry) {
    const div = element("div", { class: "figure", role: "img", "aria-label": state.view.steps[step - 1].title });
    state.parts.figures.append(div);
    entry = { div, at: undefined };
    state.figures.set(key, entry);
  }
  return entry;
}

function render(state, step, at, Plotly) {
  // Draw ``step`` at ``at`` into its div unless it already holds it; a promise of the drawing.
  const entry = slot(state, step, at);
  if (entry.at === at) return Promise.resolve(entry);
  entry.at = at;
  const figure = shownFigure(state.view.steps[step - 1], at);
  const layout = themed(structuredClone(figure.layout), theme(state.root));
  layout.height = state.height;
  layout.autosize = true;
  return Plotly.react(entry.div, figure.data, layout, { displayModeBar: false, responsive: true }).then(() => entry);
}

function paint(state, ticket, Plotly) {
  const { view, root, parts } = state;
  const i = state.step - 1;
  const step = view.steps[i];
  const made = state.controls[i];
  const at = made.read();
  const spec = step.control;
  const shown = step.views[spec.kind === "count" ? 0 : at];

  parts.heading.textContent = step.heading;
  parts.sentences.replaceChildren(...shown.sentences.map((text) => element("p", {}, text)));
  state.controls.forEach((other, j) => other.box.toggleAttribute("hidden", j !== i));
  if (made.said) made.said.textContent = spec.kind === "count" ? String(at) : spec.texts[at];
  if (made.input.type === "range") made.input.setAttribute("aria-valuetext", made.said.textContent);
  parts.back.disabled = state.step === 1;
  parts.next.disabled = state.step === view.steps.length;
  parts.back.title = state.step > 1 ? view.steps[i - 1].title : "";
  parts.next.title = state.step < view.steps.length ? view.steps[i + 1].title : "";
  if (!state.height) state.height = sized(parts.figures);

  const now = values(state);
  setQuery(now);
  render(state, state.step, at, Plotly).then((entry) => {
    if (ticket !== state.drawing) return;
    // Every figure drawn is kept, stacked in one place: showing one is a matter of visibility.
    for (const other of state.figures.values()) other.div.toggleAttribute("data-shown", other === entry);
    root.dataset.step = now.step;
    root.dataset.value = now[spec.param];
    root.dataset.pending = "0";
    state.idle = setTimeout(() => predraw(state, ticket, Plotly), PREDRAW_AFTER_MS);
  });
}

function predraw(state, ticket, Plotly) {
  // While the reader pauses, draw (hidden) what Next, Back or the control would show next: every step at its
  // control's value, then the other values of this step's control, nearest first.  One figure at a time,
  // stopping at the next move.
  // nearest first, the one ahead before the one behind
  const near = (here, count) =>
    [...Array(count).keys()].sort((a, b) => Math.abs(a - here) - Math.abs(b - here) || b - a);
  const wanted = near(state.step - 1, state.view.steps.length).map((i) => [i + 1, state.controls[i].read()]);
  const spec = state.view.steps[state.step - 1].control;
  if (spec.kind !== "count") {
    const at = state.controls[state.step - 1].read();
    for (const other of near(at, spec.values.length)) wanted.push([state.step, other]);
  }
  const next = wanted.find(([step, at]) => slot(state, step, at).at !== at);
  if (ticket !== state.drawing) return;
  const predrawn = next ? "0" : "1";
  if (state.root.dataset.predrawn !== predrawn) state.root.dataset.predrawn = predrawn;
  if (!next) return;
  render(state, next[0], next[1], Plotly).then(() => {
    if (ticket === state.drawing) state.idle = setTimeout(() => predraw(state, ticket, Plotly), 0);
  });
}

const BOTTOM_PX = 12; // room left under the figure

function sized(figures) {
  // The figures reach down to the bottom of the screen (their top as the page lies unscrolled), so one
  // screen holds the step whatever its size; never less than lesson.css's least height.
  const main = document.querySelector('[data-testid="stMain"]');
  const top = figures.getBoundingClientRect().top + (main ? main.scrollTop : 0);
  const height = Math.max(320, Math.floor(window.innerHeight - top - BOTTOM_PX));
  figures.style.height = `${height}px`;
  return height;
}
