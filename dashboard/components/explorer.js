// The uncertainty explorer's K-dependent view, drawn in the browser from the table of every K.
//
// Python (ragunc.present.explorer) sends one payload per table: every number and sentence already
// formatted, one row per K, and each figure as a base Plotly figure plus, per K, the values of a
// few of its paths.  This module only picks the row for the K on the control, substitutes it and
// draws: it computes no statistic.  The bootstrap's parts come later from the server (asked when a
// control is released) and are shown pending until an answer for the K, B and R on screen arrives.

import { loadPlotly, loadView, setQuery, theme, themed } from "./common.js";

const KEY_RELEASE_MS = 150;

function setPath(target, path, value) {
  const keys = path.split(".");
  let node = target;
  for (const key of keys.slice(0, -1)) node = node[key];
  node[keys[keys.length - 1]] = value;
}

function patch(figure, change) {
  change.paths.forEach((path, i) => setPath(figure, path, change.values[i]));
}

function build(root, view) {
  root.innerHTML = view.html;
  const controls = {};
  for (const input of root.querySelectorAll("input[type=range]")) controls[input.name] = input;
  return controls;
}

export default function (component) {
  const { data, parentElement } = component;
  const state = parentElement.__ragunc;
  if (state && state.name === data.view) return update(state, data);
  loadPlotly(); // fetched and parsed while the view is on its way, not after it
  loadView(data.view).then((view) => {
    const now = parentElement.__ragunc;
    if (now && now.name === data.view) return update(now, data);
    mount(component, view, data);
  });
}

function mount(component, view, data) {
  const { parentElement, setStateValue } = component;
  const previous = parentElement.__ragunc;
  let root = parentElement.querySelector('[data-testid="ragunc-explorer"]');
  if (!root) {
    root = document.createElement("section");
    root.dataset.testid = "ragunc-explorer";
    parentElement.appendChild(root);
  }
  const state = { name: data.view, root, view, answer: null, drawing: 0 };
  state.controls = build(root, view);
  const { k, boot, reps } = state.controls;
  // A new table (new R, chunk size, level...) keeps the K the reader is on when it is in range.
  const keep = previous ? +previous.controls.k.value : data.k;
  k.value = keep >= view.k.min && keep <= view.k.max ? keep : data.k;
  boot.value = view.choices.boot.indexOf(data.boot);
  reps.value = view.choices.reps.indexOf(data.reps);
  const sent = { k: data.k, boot: data.boot, reps: data.reps };
  const current = () => ({
    k: +k.value,
    boot: view.choices.boot[+boot.value],
    reps: view.choices.reps[+reps.value],
  });
  const release = () => {
    const now = current();
    for (const name of Object.keys(now)) {
      if (now[name] !== sent[name]) {
        sent[name] = now[name];
        setStateValue(name, now[name]);
      }
    }
  };
  // A pointer releases the control once; arrow keys release it on every press, so the server hears
  // of the K the keys stop on, not of each K on the way.
  let byKey = false;
  let timer = 0;
  for (const input of [k, boot, reps]) {
    input.addEventListener("keydown", () => (byKey = true));
    input.addEventListener("pointerdown", () => (byKey = false));
    input.addEventListener("input", () => draw(state, current()));
    input.addEventListener("change", () => {
      clearTimeout(timer);
      if (byKey) timer = setTimeout(release, KEY_RELEASE_MS);
      else release();
    });
  }
  state.current = current;
  parentElement.__ragunc = state;
  release(); // the K kept from the previous table, when the server has another
  update(state, data);
}

function update(state, data) {
  const now = state.current();
  const matches = (answer) =>
    answer && answer.k === now.k && answer.boot === now.boot && answer.reps === now.reps;
  // A rerun re-sends the data: redraw only for a new view or an answer for what is on screen.
  const redraw = !state.drawn || (matches(data.answer) && !matches(state.answer));
  state.answer = data.answer;
  if (redraw) draw(state, now);
}

function draw(state, now) {
  const ticket = ++state.drawing;
  // Synchronously once Plotly.js is loaded, the figures first: Plotly measures the page while the
  // page's layout is still clean, and the text written after costs one layout at the next paint.
  if (window.Plotly) paint(state, now, ticket, window.Plotly);
  else loadPlotly().then((Plotly) => ticket === state.drawing && paint(state, now, ticket, Plotly));
}

function paint(state, now, ticket, Plotly) {
  const { root, view, answer } = state;
  const colors = theme(root);
  const row = now.k - view.k.min;
  const texts = view.rows[row];
  const fresh = answer && answer.k === now.k && answer.boot === now.boot && answer.reps === now.reps;
  const tableReps = now.reps === view.reps;
  const drawn = Object.entries(view.figures).map(([name, spec]) => {
    const figure = structuredClone(spec.base);
    patch(figure, { paths: spec.paths, values: spec.values[row] });
    const later = fresh ? answer.figures[name] : view.pending.figures[name];
    if (later) patch(figure, later);
    const el = root.querySelector(`[data-figure="${name}"]`);
    return Plotly.react(el, figure.data, themed(figure.layout, colors), { displayModeBar: false, responsive: true });
  });
  for (const el of root.querySelectorAll("[data-slot]")) {
    const i = view.slots.indexOf(el.dataset.slot);
    if (i >= 0) el.textContent = texts[i];
  }
  for (const el of root.querySelectorAll("[data-template]")) {
    el.textContent = view.templates[el.dataset.template].replace(
      /\{(\w+)\}/g,
      (_, name) => texts[view.slots.indexOf(name)],
    );
  }
  const extra = fresh ? answer.text : view.pending.text;
  for (const [slot, text] of Object.entries(extra)) {
    const el = root.querySelector(`[data-slot="${slot}"]`);
    if (el) el.textContent = text;
  }
  root.querySelector('[data-value="k"]').textContent = view.k.texts[row];
  root.querySelector('[data-value="boot"]').textContent = view.choices.bootTexts[view.choices.boot.indexOf(now.boot)];
  root.querySelector('[data-value="reps"]').textContent = view.choices.repsTexts[view.choices.reps.indexOf(now.reps)];
  state.controls.k.setAttribute("aria-valuetext", view.k.texts[row]);
  const pending = (fresh ? 0 : view.pending.parts) + (tableReps ? 0 : 1);
  root.classList.toggle("ragunc-stale-reps", !tableReps);
  setQuery(now);
  Promise.all(drawn).then(() => {
    if (ticket !== state.drawing) return;
    state.drawn = true;
    root.dataset.k = String(now.k);
    root.dataset.pending = String(pending);
  });
}
