import { h, section, words } from "../dom.js";
export default {
  board: (view, k) => [section("board", "Board", h("pre", { class: "generic" }, JSON.stringify(k, null, 1)))],
  decisionTitle: (d) => words(d),
  fieldPrompt: (f) => words(f),
  valueLabel: (f, v) => (Array.isArray(v) ? v.join(", ") : String(v)),
  moveText: (d, p) => [words(d), ...Object.entries(p).map(([k, v]) => `${words(k)} ${v}`)].join(", "),
  tell: () => null,
};
