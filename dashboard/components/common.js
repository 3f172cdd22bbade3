// What the app's components drawn in the browser share: the published view they fetch, Plotly.js
// (both served beside the component's own files), the page's theme for a figure, the URL's query.

const PLOTLY_URL = new URL("../ragunc.plotly/plotly-basic.min.js", import.meta.url).href;
const VIEWS_URL = new URL("../ragunc.views/", import.meta.url).href;
const views = new Map(); // file name -> the view's promise: each view is fetched once per page

export function loadView(name) {
  if (!views.has(name)) views.set(name, fetch(VIEWS_URL + name).then((response) => response.json()));
  return views.get(name);
}

export function loadPlotly() {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!window.__raguncPlotly) {
    window.__raguncPlotly = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = PLOTLY_URL;
      script.onload = () => resolve(window.Plotly);
      script.onerror = reject;
      document.head.appendChild(script);
    });
  }
  return window.__raguncPlotly;
}

export function theme(root) {
  const style = getComputedStyle(root);
  return {
    text: style.getPropertyValue("--st-text-color").trim() || style.color,
    grid: style.getPropertyValue("--st-border-color").trim() || "rgba(128,128,128,0.3)",
    font: style.fontFamily,
  };
}

export function themed(layout, { text, grid, font }) {
  layout.font = Object.assign({}, layout.font, { color: text, family: font });
  layout.paper_bgcolor = "rgba(0,0,0,0)";
  layout.plot_bgcolor = "rgba(0,0,0,0)";
  for (const axis of ["xaxis", "yaxis"]) {
    layout[axis] = Object.assign({ gridcolor: grid, zerolinecolor: grid }, layout[axis]);
  }
  return layout;
}

export function setQuery(values) {
  const url = new URL(window.location.href);
  for (const [name, value] of Object.entries(values)) url.searchParams.set(name, String(value));
  window.history.replaceState(window.history.state, "", url);
}
