// Composing a move out of the view's legal moves, and nothing else.
//
// The legal moves are grouped by decision (the member of the game's move oneof). A decision with
// one move is one button. Otherwise its parameters are asked for one at a time, in the order the
// moves carry them: a field whose value is the same in every remaining move is settled without
// asking; a list field (four top candidates, a Staff, politicians for an event) is chosen item by
// item, and an item can only be added while some legal move still contains the whole selection;
// a numeric field with many values gets a stepper. The move sent is always one of the legal
// moves, verbatim, so the page needs no rule of any game.

import { h, capital, replaceKeepingFocus } from "./dom.js";

const STEPPER_MIN_VALUES = 4;

const key = (value) => JSON.stringify(value);
const sameSet = (a, b) => a.length === b.length && a.every((x) => b.some((y) => key(y) === key(x)));
const covers = (arr, items) => items.every((x) => arr.some((y) => key(y) === key(x)));

/** The decision name and its parameters of a legal move of a game: {decision, params}. */
export function parts(move) {
  const body = Object.values(move)[0] ?? {};
  const [decision, params] = Object.entries(body)[0] ?? ["", {}];
  return { decision, params: params ?? {} };
}

/** A fresh composer state. */
export function newComposerState() {
  return { decision: null, picks: {}, sets: {}, steps: {} };
}

/**
 * The move composer for `moves` (this seat's legal moves). `game` is the kind's renderer (labels and
 * titles), `state` persists across redraws of the same legal moves, `submit(move)` sends one.
 */
export function composer(moves, game, ctx, state, submit) {
  const root = h("div", { class: "composer" });
  const groups = new Map();
  for (const move of moves) {
    const { decision, params } = parts(move);
    if (!groups.has(decision)) groups.set(decision, []);
    groups.get(decision).push({ move, params });
  }
  if (groups.size === 1) state.decision = [...groups.keys()][0];

  // A pick keeps the keyboard in the composer: on the control drawn in its place, else on the
  // first choice left or the Confirm (never on Back, which would undo the composition).
  const redraw = () => replaceKeepingFocus(root, draw(), () => root.querySelector("button.choice:not(:disabled), .confirm button"));
  const label = (field, value, decision) => game.valueLabel(field, value, ctx, decision);
  const moveButton = (entry, decision, text, confirm = false) =>
    h("button", { class: `move primary${confirm ? " confirm-move" : ""}`, type: "button", dataset: { decision }, onclick: () => submit(entry.move) },
      text ?? capital(game.moveText(decision, entry.params, ctx)));

  function draw() {
    if (!state.decision || !groups.has(state.decision)) {
      state.decision = null;
      return [h("div", { class: "decisions" }, [...groups.entries()].map(([decision, entries]) =>
        entries.length === 1
          ? moveButton(entries[0], decision)
          : h("button", { class: "decision", type: "button", dataset: { decision },
            onclick: () => { Object.assign(state, newComposerState(), { decision }); redraw(); } },
          capital(game.decisionTitle(decision, ctx)), "…")))];
    }
    const decision = state.decision;
    const entries = groups.get(decision);
    const out = [h("div", { class: "decision-title" },
      h("b", {}, capital(game.decisionTitle(decision, ctx))),
      groups.size > 1 ? h("button", { class: "back", type: "button", onclick: () => { Object.assign(state, newComposerState()); redraw(); } }, "Back") : null)];
    const fields = [];
    for (const e of entries) for (const f of Object.keys(e.params)) if (!fields.includes(f)) fields.push(f);
    // A game may ask for some fields first (a Staffer before its field; an Action before targets).
    const first = game.fieldOrder?.(decision) ?? [];
    fields.sort((a, b) => (first.includes(a) ? first.indexOf(a) : first.length) - (first.includes(b) ? first.indexOf(b) : first.length));
    let remaining = entries;
    for (const field of fields) {
      const values = remaining.map((e) => e.params[field]);
      if (Array.isArray(values[0]) || values.some(Array.isArray)) {
        const lists = values.map((v) => v ?? []);
        // A list is ordered when two legal moves hold the same items in another order (News laid
        // on the Red fields): then the order of selection is the order sent.
        const ordered = lists.some((a) => lists.some((b) => sameSet(a, b) && key(a) !== key(b)));
        const distinct = new Set(lists.map((v) => key(ordered ? v : [...v].sort())));
        if (distinct.size === 1) continue;
        const fits = ordered
          ? (list, picked) => picked.every((x, i) => key(list[i]) === key(x))
          : (list, picked) => covers(list, picked);
        const chosen = [];
        for (const x of state.sets[field] ?? []) if (lists.some((l) => fits(l, [...chosen, x]))) chosen.push(x);
        state.sets[field] = chosen;
        const items = [];
        for (const list of lists) for (const x of list) if (!items.some((y) => key(y) === key(x))) items.push(x);
        const exact = remaining.filter((e) => (ordered ? key(e.params[field] ?? []) === key(chosen) : sameSet(e.params[field] ?? [], chosen)));
        const sizes = new Set(lists.filter((l) => fits(l, chosen)).map((l) => l.length));
        const most = Math.max(...sizes);
        // "2 of 4 chosen" where every legal list holds four; "up to" where they differ.
        const told = sizes.size === 1 ? ` (${chosen.length} of ${most} chosen)` : ` (${chosen.length} chosen${exact.length ? "" : `, up to ${most}`})`;
        out.push(h("div", { class: "field-prompt" }, capital(game.fieldPrompt(field, decision, ctx)),
          h("span", { class: "muted" }, told)));
        out.push(h("div", { class: "choices set", dataset: { field } }, items.map((item) => {
          const selected = chosen.some((x) => key(x) === key(item));
          const possible = selected || lists.some((l) => fits(l, [...chosen, item]));
          const drawn = game.itemNode?.(field, item, ctx, decision);
          return h("button", {
            class: `choice${selected ? " selected" : ""}${drawn ? " card-choice" : ""}`, type: "button", disabled: !possible,
            "aria-pressed": selected ? "true" : "false", dataset: { value: key(item) },
            onclick: () => {
              state.sets[field] = selected ? chosen.filter((x) => key(x) !== key(item)) : [...chosen, item];
              redraw();
            },
          }, ordered && selected ? h("span", { class: "order" }, `${chosen.findIndex((x) => key(x) === key(item)) + 1}. `) : null,
          drawn ?? label(field, item, decision));
        })));
        if (!exact.length) return out;
        remaining = exact;
        continue;
      }
      const distinct = [];
      for (const v of values) if (!distinct.some((d) => key(d) === key(v))) distinct.push(v);
      if (distinct.length === 1) continue;
      if (field in state.picks && distinct.some((d) => key(d) === key(state.picks[field]))) {
        const picked = state.picks[field];
        out.push(h("div", { class: "picked" }, `${capital(game.fieldPrompt(field, decision, ctx))}: `, h("b", {}, label(field, picked, decision)), " ",
          h("button", { class: "change", type: "button", dataset: { field }, onclick: () => { unpick(fields, field); redraw(); } }, "Change")));
        remaining = remaining.filter((e) => key(e.params[field]) === key(picked));
        continue;
      }
      out.push(h("div", { class: "field-prompt" }, capital(game.fieldPrompt(field, decision, ctx))));
      const numeric = distinct.every((v) => Number.isInteger(v)) && distinct.length >= STEPPER_MIN_VALUES && game.stepper?.(field, decision);
      if (numeric) {
        const sorted = [...distinct].sort((a, b) => a - b);
        const at = Math.max(0, sorted.indexOf(state.steps[field] ?? sorted[0]));
        const move = (by) => () => { state.steps[field] = sorted[Math.min(sorted.length - 1, Math.max(0, at + by))]; redraw(); };
        out.push(h("div", { class: "stepper", dataset: { field } },
          h("button", { class: "step step-down", type: "button", "aria-label": "less", disabled: at === 0, onclick: move(-1) }, "−"),
          h("output", {}, label(field, sorted[at], decision)),
          h("button", { class: "step step-up", type: "button", "aria-label": "more", disabled: at === sorted.length - 1, onclick: move(1) }, "+"),
          h("button", { class: "choice ok", type: "button", onclick: () => { state.picks[field] = sorted[at]; redraw(); } }, "OK")));
        return out;
      }
      out.push(h("div", { class: "choices", dataset: { field } }, distinct.map((value) => {
        const drawn = game.itemNode?.(field, value, ctx, decision);
        return h("button", { class: `choice${drawn ? " card-choice" : ""}`, type: "button", dataset: { value: key(value) }, onclick: () => { state.picks[field] = value; redraw(); } },
          drawn ?? label(field, value, decision));
      })));
      return out;
    }
    if (remaining.length) out.push(h("div", { class: "confirm" }, moveButton(remaining[0], decision, `Confirm: ${game.moveText(decision, remaining[0].params, ctx)}`, true)));
    return out;
  }

  function unpick(fields, field) {
    for (const f of fields.slice(fields.indexOf(field))) {
      delete state.picks[f];
      delete state.sets[f];
    }
  }

  redraw();
  return root;
}
