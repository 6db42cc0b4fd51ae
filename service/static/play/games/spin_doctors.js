// The Spin Doctors at the table: the map of Regions and Localities with vote values, Turnout and
// Topic cards and every Support token; the News fields; each party's votes per Voter Group,
// Budget, supply, side moves left and the Favourite; Staffers on the board; the Debate, Poll and
// Election as they happen (through the log and the pending decision). Drawn from the view and the
// catalogue.

import { capital, count, enumWords, h, listWords, section, stat } from "../dom.js";

function index(ctx) {
  if (!ctx.cache.sd) {
    const cat = ctx.cat;
    const byId = (list, key = "cardId") => new Map((list ?? []).map((x) => [x[key], x]));
    ctx.cache.sd = {
      staffers: new Map((cat.staffers ?? []).map((s) => [s.staffer ?? 0, s])),
      actions: byId(cat.actions, "action"),
      localities: new Map((cat.localities ?? []).map((l) => [l.locality ?? 0, l])),
      fields: new Map((cat.fields ?? []).map((f) => [f.field ?? 0, f])),
      groups: new Map((cat.voterGroups ?? []).map((g) => [g.voterGroup ?? 0, g])),
      topics: new Map((cat.topics ?? []).map((t) => [t.topic ?? 0, t])),
      colours: new Map((cat.colours ?? []).map((c) => [c.colour ?? 0, c])),
      traits: byId(cat.voterTraits, "id"),
      turnout: byId(cat.turnoutCards),
      topicCards: byId(cat.topicCards),
      news: byId(cat.newsCards),
      programme: byId(cat.programmeCards),
      staffs: new Map((cat.readyMadeStaffs ?? []).map((s) => [s.staff ?? 0, s])),
    };
  }
  return ctx.cache.sd;
}

const staffer = (ctx, order) => index(ctx).staffers.get(order)?.name ?? `Staffer ${order}`;
const locality = (ctx, i) => index(ctx).localities.get(i)?.name ?? `locality ${i}`;
const group = (ctx, i) => index(ctx).groups.get(i)?.name ?? `group ${i}`;
const fieldName = (ctx, f) => index(ctx).fields.get(f)?.name ?? `field ${f}`;
const topic = (ctx, i) => index(ctx).topics.get(i)?.name ?? `topic ${i}`;
const action = (ctx, id) => index(ctx).actions.get(id)?.name ?? id;
const player = (ctx, seat) => (ctx.kindView.players ?? []).find((p) => (p.seat ?? 0) === seat);
const colourOf = (ctx, seat) => player(ctx, seat)?.colour ?? "grey";
const who = (ctx, seat) => ctx.seatName(seat) || `seat ${seat}`;
const CONDITION = { SPIN_DOCTORS_PROGRAMME_CONDITION_THREE_OR_MORE: "3 or more", SPIN_DOCTORS_PROGRAMME_CONDITION_ZERO_TO_TWO: "0 to 2" };

/** Any card id of the game in words. */
function cardText(ctx, id) {
  if (!id) return "none";
  const x = index(ctx);
  const news = x.news.get(id);
  if (news) {
    if (news.scandalColour !== undefined && id.startsWith("S-")) return `Scandal of ${x.colours.get(news.scandalColour)?.name ?? id}`;
    return `${topic(ctx, news.topic ?? 0)} news: ${group(ctx, news.voterGroup ?? 0)} ${(news.turnoutChange ?? 0) >= 0 ? "+" : ""}${news.turnoutChange ?? 0}`;
  }
  const prog = x.programme.get(id);
  if (prog) return `${topic(ctx, prog.topic ?? 0)} ${CONDITION[prog.condition] ?? ""}: +${prog.reward ?? 0} / −${prog.penalty ?? 0}`;
  const t = x.topicCards.get(id);
  if (t) return `${topic(ctx, t.topic ?? 0)} (${t.redFields ?? 0} red, ${t.whiteFields ?? 0} white)`;
  const turnout = x.turnout.get(id);
  if (turnout) return `${group(ctx, turnout.voterGroup ?? 0)} turnout (${x.traits.get(turnout.trait)?.name ?? turnout.trait})`;
  return id;
}

/** What a conditional offer pays for, in words (JSON leaves out zero values: seat 0, Staffer 0). */
function termText(ctx, term) {
  const t = term ?? {};
  const seat = t.seat ?? 0;
  const whose = `${who(ctx, seat)}’s`;
  switch (String(t.kind ?? "").replace("SPIN_DOCTORS_DEAL_TERM_KIND_", "")) {
    case "REDUCE_VOTES": return `reduce ${whose} Votes in the speech`;
    case "SPARE_VOTES": return "give up reducing Votes in the speech";
    case "ORDER_TIE": return `let ${whose} tied Staffer go next`;
    case "CONSENT": return "agree to the Topic change";
    case "PUSH_OFF": return `push ${whose} token off a White field`;
    case "ACTION": return `${action(ctx, t.action)} on ${(t.staffer ?? 0) >= 0 ? `${whose} ${staffer(ctx, t.staffer ?? 0)}` : who(ctx, seat)}`;
    default: return "an unknown term";
  }
}

/** A pending offer (SpinDoctorsView.offers) in words. */
function offerText(ctx, offer) {
  const o = offer ?? {};
  return `${who(ctx, o.offerer ?? 0)} offers ${count(o.amount ?? 0, "Budget point")} to ${who(ctx, o.seat ?? 0)} to ${termText(ctx, o.term)}`;
}

function token(ctx, seat, title) {
  if (seat === undefined || seat < 0) return h("span", { class: "token empty", title: "empty" });
  const c = colourOf(ctx, seat);
  return h("span", { class: `token c-${c}`, style: `background:${c}`, title: title ?? who(ctx, seat), dataset: { seat } });
}

function localityNode(ctx, loc) {
  const x = index(ctx);
  const info = x.localities.get(loc.locality ?? 0) ?? {};
  const turnout = x.turnout.get(loc.turnoutCard) ?? {};
  const t = x.topicCards.get(loc.topicCard) ?? {};
  const redSlots = Array.from({ length: Math.max(t.redFields ?? 0, (loc.redTokens ?? []).length) }, (_, i) => (loc.redTokens ?? [])[i] ?? -1);
  const whiteSlots = Array.from({ length: Math.max(t.whiteFields ?? 0, (loc.whiteTokens ?? []).length) }, (_, i) => (loc.whiteTokens ?? [])[i] ?? -1);
  return h("div", { class: "locality", dataset: { locality: loc.locality ?? 0 } },
    h("div", { class: "loc-head" }, h("b", {}, info.name ?? `locality ${loc.locality}`), " ",
      h("span", { class: "vote-values", title: "votes for first / second / third" }, `votes ${(info.votes ?? []).join("/")}`)),
    h("div", { class: "turnout-card", dataset: { card: loc.turnoutCard } },
      h("span", { class: "small" }, `${group(ctx, turnout.voterGroup ?? 0)} · ${x.traits.get(turnout.trait)?.name ?? ""}${turnout.funding ? ` · funding ${turnout.funding}` : ""}`),
      h("div", { class: "slots" }, (loc.turnoutTokens ?? []).map((s) => token(ctx, s)))),
    h("div", { class: "topic-card", dataset: { card: loc.topicCard } },
      h("span", { class: "small" }, topic(ctx, t.topic ?? 0)),
      h("div", { class: "slots" }, redSlots.map((s) => h("span", { class: "slot red" }, token(ctx, s))), whiteSlots.map((s) => h("span", { class: "slot white" }, token(ctx, s))))),
    h("div", { class: "activity small" }, "Activity ", (loc.activityTokens ?? []).length ? (loc.activityTokens ?? []).map((s) => token(ctx, s)) : h("span", { class: "muted" }, "—")));
}

function boardStaffers(ctx, field) {
  const here = (ctx.kindView.boardStaffers ?? []).filter((b) => (b.field ?? 0) === field);
  if (!here.length) return null;
  return h("div", { class: "board-staffers small" }, here.map((b) => h("span", { class: `staffer-chip${b.resolved ? " resolved" : ""}${b.blocked ? " blocked" : ""}` },
    token(ctx, b.seat ?? 0), " ", b.faceUp || (b.staffer ?? -1) >= 0 ? staffer(ctx, b.staffer ?? 0) : "face down",
    b.faceUp ? "" : (b.staffer ?? -1) >= 0 ? " (face down)" : "", b.blocked ? " · blocked" : "", b.resolved ? " · done" : "")));
}

/** A News field as the board labels it: "Red 1" … "Blue 4" (the event's index counts from 0). */
function newsFieldName(ctx, i) {
  const red = ctx.cat.newsTrack?.redFields ?? 3;
  return `${i < red ? "Red" : "Blue"} ${i + 1}`;
}

function newsNode(ctx, k) {
  const news = k.news ?? [];
  const down = k.newsFaceDown ?? [];
  const red = ctx.cat.newsTrack?.redFields ?? 3;
  return h("div", { id: "news", class: "news-fields" }, news.map((id, i) => h("div", { class: `news-field ${i < red ? "red" : "blue"}`, dataset: { index: i } },
    h("span", { class: "small muted" }, newsFieldName(ctx, i)),
    h("div", {}, id ? cardText(ctx, id) : down[i] ? "face down" : h("span", { class: "muted" }, "empty")))));
}

function partiesTable(ctx, k) {
  const groups = [...index(ctx).groups.values()];
  const short = (g) => g.name.split(" ").map((w) => w[0]).join("");
  return h("div", { class: "scroll" }, h("table", { id: "party-table" },
    h("tr", {}, h("th", {}, "Party"), groups.map((g) => h("th", { title: g.name }, short(g))), h("th", {}, "Budget"), h("th", {}, "Supply"),
      h("th", { title: "side moves (hand-overs, offers, withdrawals, declines) left before the next decision" }, "Side moves left")),
    h("tr", { class: "muted small" }, h("td", {}, "Turnout"), groups.map((g, i) => h("td", { class: "turnout-marker" }, String((k.turnoutMarkers ?? [])[i] ?? 0))), h("td", {}), h("td", {}), h("td", {})),
    (k.players ?? []).map((p) => h("tr", { class: (p.seat ?? 0) === ctx.me ? "mine" : "", dataset: { seat: p.seat ?? 0 } },
      h("td", {}, token(ctx, p.seat ?? 0), " ", who(ctx, p.seat ?? 0), (p.seat ?? 0) === (k.favourite ?? -1) ? h("b", { title: "Favourite" }, " ★") : null),
      groups.map((g, i) => votesCell((p.votes ?? [])[i] ?? 0, (k.turnoutMarkers ?? [])[i] ?? 0)),
      h("td", { class: "budget" }, String(p.budget ?? 0), p.pool ? ` +${p.pool} pool` : ""),
      h("td", { class: "supply" }, String(p.supply ?? 0)),
      h("td", { class: "side-moves-left" }, String(p.sideMovesLeft ?? 0))))),
    // The groups' initials, in words for a phone, which shows no hover titles.
    h("p", { class: "muted small legend" }, groups.map((g) => `${short(g)}: ${g.name}`).join(" · "),
      " · votes → n: only n count, the group's Turnout"));
}

// A seat's Votes in a group, and, past the group's Turnout marker, what the Election counts of
// them (the Result's "votes" are these; the table showed the markers' places alone).
function votesCell(votes, turnout) {
  const capped = Number(votes) > Number(turnout);
  return h("td", {
    class: `votes${capped ? " over-turnout" : ""}`,
    dataset: capped ? { counts: turnout } : {},
    title: capped ? `${votes} votes, ${turnout} of them count (the Turnout marker)` : null,
  }, String(votes));
}

function stafferCard(ctx, order) {
  const s = index(ctx).staffers.get(order) ?? {};
  return h("span", { class: "card staffer", dataset: { staffer: order } },
    h("span", { class: "card-amount" }, s.name ?? `Staffer ${order}`),
    h("span", { class: "card-label small" }, `${listWords((s.basicActions ?? []).map((a) => action(ctx, a)))} (${s.basicCost ?? 0})`),
    (s.specialActions ?? []).length ? h("span", { class: "card-cost" }, `special: ${listWords(s.specialActions.map((a) => action(ctx, a)))} (${s.specialCost ?? 0})`) : null);
}

function board(view, k, ctx) {
  const out = [];
  const me = player(ctx, ctx.me ?? -1);
  if (me && ctx.me !== undefined) {
    const onBoard = new Set((k.boardStaffers ?? []).filter((b) => b.seat === ctx.me).map((b) => b.staffer));
    out.push(section("hand", `Your campaign · ${me.colour}`,
      h("div", { class: "row" }, stat("budget", me.budget ?? 0), stat("supply", me.supply ?? 0), stat("staffers in hand", me.handCount ?? 0), stat("side moves left", me.sideMovesLeft ?? 0)),
      h("div", { class: "small" }, "Staff: ", (me.staff ?? []).length ? (me.staff ?? []).map((o, i) => [i ? ", " : "", h("span", { class: `staffer-name${onBoard.has(o) ? " muted" : ""}`, title: onBoard.has(o) ? "on the board" : "in hand" }, staffer(ctx, o))]) : "not chosen yet"),
      h("div", { class: "small" }, "Programme: ",
        [...(me.programmeFaceUp ?? []).map((c) => `${cardText(ctx, c)} (face up)`), ...(me.programmeFaceDown ?? []).map((c) => `${cardText(ctx, c)} (face down)`)].join("; ") || "none")));
  }
  const pending = k.pending;
  out.push(section("standing", `${roundWords(k)} · ${enumWords(k.phase, "SPIN_DOCTORS_PHASE_")}`,
    pending?.kind ? h("p", { id: "pending" }, `Waiting for ${who(ctx, pending.seat ?? 0)}: ${pending.kind}`,
      (pending.locality ?? -1) >= 0 ? ` in ${locality(ctx, pending.locality)}` : "", (pending.staffer ?? -1) >= 0 ? ` (${staffer(ctx, pending.staffer)})` : "",
      (pending.otherSeat ?? -1) >= 0 ? ` with ${who(ctx, pending.otherSeat)}` : "", pending.amount ? `, ${count(pending.amount, "point")}` : "") : null,
    (k.namedWinner ?? -1) >= 0 ? h("p", {}, `Named winner: ${who(ctx, k.namedWinner)}`) : null,
    (k.offers ?? []).length ? h("div", { id: "offers" }, h("b", {}, "Offers on the table"),
      h("ul", {}, (k.offers ?? []).map((o, i) => h("li", { class: "offer", dataset: { offer: i, seat: o.offerer ?? 0 } }, token(ctx, o.offerer ?? 0), " ", offerText(ctx, o))))) : null,
    partiesTable(ctx, k),
    h("div", { class: "programmes small" }, (k.players ?? []).map((p) => h("div", { dataset: { seat: p.seat ?? 0 } }, token(ctx, p.seat ?? 0), " ",
      `${who(ctx, p.seat ?? 0)}: programme ${p.programmeCount ?? 0} cards`, (p.programmeFaceUp ?? []).length ? ` — ${(p.programmeFaceUp ?? []).map((c) => cardText(ctx, c)).join("; ")}` : "",
      (p.shownStaffers ?? []).length ? h("div", { class: "muted" }, "Staffers seen: ", listWords(p.shownStaffers.map((o) => staffer(ctx, o)))) : null)))));
  const media = section("media", fieldName(ctx, 1),
    newsNode(ctx, k),
    h("div", { class: "row small" }, stat("News deck", k.newsDeckCount ?? 0), stat("Topic deck", k.topicDeckCount ?? 0),
      stat("News discard", (k.newsDiscard ?? []).length), (k.scandalsAside ?? []).length ? h("span", {}, "Scandals aside: ", (k.scandalsAside ?? []).map((c) => cardText(ctx, c)).join(", ")) : null),
    boardStaffers(ctx, 1));
  out.push(media);
  const regions = [...index(ctx).fields.values()].filter((f) => (f.field ?? 0) >= 2);
  const locs = k.localities ?? [];
  out.push(section("map", "The map", h("div", { class: "regions" }, regions.map((f) => h("div", { class: `region${(k.fieldNow ?? 0) === f.field && k.phase === "SPIN_DOCTORS_PHASE_RESOLUTION" ? " now" : ""}`, dataset: { field: f.field } },
    h("h3", {}, f.name), boardStaffers(ctx, f.field),
    locs.filter((l) => index(ctx).localities.get(l.locality ?? 0)?.field === f.field).map((l) => localityNode(ctx, l)))))));
  return out;
}

// The round in words: none has begun while the Staffs are chosen (the view's round is 0 then).
const roundWords = (k) => ((k.round ?? 0) > 0 ? `Round ${k.round}` : "Before the first round");

const NONE = (v) => v === -1 || v === "" || v === undefined || v === null;

export default {
  // Options offered when a table is created (names as in SpinDoctorsOptions' JSON).
  options: [{ key: "scandalsSetAside", label: "Scandals set aside", type: "checkbox" }],
  headline(ctx) {
    const k = ctx.kindView;
    return h("p", { class: "headline" }, `${roundWords(k)} · ${enumWords(k.phase, "SPIN_DOCTORS_PHASE_")} · Favourite ${who(ctx, k.favourite ?? 0)}`);
  },
  seatNote(seat, ctx) {
    return player(ctx, seat) ? token(ctx, seat) : null;
  },
  board,
  fieldOrder: (decision) => (decision === "playStaffer" ? ["staffer", "field"] : decision === "act" ? ["action"] : decision === "offerDeal" ? ["term", "amount"] : null),
  dialog(moves) {
    const decision = Object.keys(Object.values(moves[0])[0] ?? {})[0];
    return { consent: "Consent to a Topic change?", answerBlackmail: "Blackmail: pay or refuse?", speech: "The Favourite's speech", nameWinner: "Name the winner" }[decision] ?? null;
  },
  decisionTitle(decision) {
    return {
      chooseStaff: "choose your Staff", chooseProgramme: "choose a Programme card", revealProgramme: "turn up a Programme card",
      playStaffer: "play a Staffer", orderTie: "order tied Staffers", act: "use an Action", decline: "do not act",
      placeSupport: "place Support", placeOnTopic: "place on the Topic", broadcast: "broadcast News", arrangeNews: "arrange the News",
      consent: "answer the Topic change", answerBlackmail: "answer the Blackmail", speech: "give the speech", swapStaffer: "change a Staffer",
      exchangeProgramme: "change the Programme", nameWinner: "name the winner", handBudget: "hand Budget points",
      offerDeal: "offer Budget points for a decision", withdrawOffer: "withdraw an offer", declineOffer: "decline an offer",
    }[decision] ?? decision;
  },
  fieldPrompt(field, decision) {
    return {
      staffers: "select your Staffers", staffer: "which Staffer", field: "on which field", card: "which card", take: decision === "swapStaffer" ? "Staffer to take" : "card to take",
      discard: "Staffer to let go", action: "which Action", locality: "which Locality", second: "second target", seat: "which player",
      voterGroup: "which Voter Group", step: "how many steps", amount: "how many", red: "Red or White field", pushOff: "push off", accept: "answer",
      pay: "pay?", cards: "in which order", staff: "ready-made Staff", term: "for which decision", offer: "which offer",
    }[field] ?? field;
  },
  stepper: (field) => field === "amount",
  valueLabel(field, value, ctx, decision) {
    if (field === "term") return termText(ctx, value);
    if (field === "offer") return offerText(ctx, (ctx.kindView.offers ?? [])[value ?? 0]);
    if (Array.isArray(value)) return value.length ? value.map((v) => this.valueLabel(field === "staffers" ? "staffer" : "card", v, ctx, decision)).join(", ") : "none";
    if (typeof value === "boolean") return field === "red" ? (value ? "Red field" : "White field") : value ? "yes" : "no";
    if (NONE(value)) return decision === "swapStaffer" || decision === "exchangeProgramme" ? "keep as it is" : "none";
    if (["staffer", "discard", "targetStaffer"].includes(field) || (field === "take" && decision === "swapStaffer")) return staffer(ctx, value);
    if (field === "field") return fieldName(ctx, value);
    if (field === "locality" || (field === "second" && typeof value === "number" && decision === "act" && false)) return locality(ctx, value);
    if (field === "voterGroup") return group(ctx, value);
    if (field === "seat") return who(ctx, value);
    if (field === "pushOff") {
      // An index into the White tokens of the Locality the decision is about, lowest first.
      const k = ctx.kindView;
      const loc = (k.localities ?? []).find((l) => (l.locality ?? 0) === (k.pending?.locality ?? -1));
      const owner = (loc?.whiteTokens ?? [])[value ?? 0];
      return owner === undefined ? `White token ${(value ?? 0) + 1}` : `${who(ctx, owner)}’s token`;
    }
    if (field === "action") return action(ctx, value);
    if (field === "staff") return `Staff ${value}`;
    if (typeof value === "string") return cardText(ctx, value);
    return String(value);
  },
  itemNode(field, value, ctx, decision) {
    if (field === "staffers" || (field === "staffer" && decision === "playStaffer")) return stafferCard(ctx, value);
    if (field === "action" && index(ctx).actions.has(value)) {
      const a = index(ctx).actions.get(value);
      return h("span", { class: "card action-card" }, h("span", { class: "card-amount" }, a.name), h("span", { class: "card-label small" }, a.text ?? ""));
    }
    return null;
  },
  moveText(decision, p, ctx) {
    const parts = Object.entries(p).filter(([, v]) => !NONE(v) && !(Array.isArray(v) && !v.length)).map(([f, v]) => this.valueLabel(f, v, ctx, decision));
    if (decision === "act") {
      const a = index(ctx).actions.get(p.action) ?? {};
      const targets = (a.actFields ?? []).map((f) => f.replace(/_([a-z])/g, (_, c) => c.toUpperCase())).map((f) => {
        const v = p[f];
        if (NONE(v)) return "";
        if (f === "second") return (a.target ?? "").includes("LOCALITIES") ? locality(ctx, v) : group(ctx, v);
        if (f === "step") return `${v} steps`;
        return this.valueLabel(f, v, ctx, decision);
      });
      return `${a.name ?? p.action}${targets.filter(Boolean).length ? `: ${listWords(targets.filter(Boolean))}` : ""}`;
    }
    if (decision === "playStaffer") return `${staffer(ctx, p.staffer ?? 0)} on ${fieldName(ctx, p.field ?? 0)}`;
    if (decision === "handBudget") return `hand ${count(p.amount ?? 0, "Budget point")} to ${who(ctx, p.seat ?? 0)}`;
    if (decision === "offerDeal") return `offer ${count(p.amount ?? 0, "Budget point")} to ${who(ctx, p.seat ?? 0)} to ${termText(ctx, p.term)}`;
    if (decision === "withdrawOffer") return `withdraw: ${offerText(ctx, (ctx.kindView.offers ?? [])[p.offer ?? 0])}`;
    if (decision === "declineOffer") return `decline: ${offerText(ctx, (ctx.kindView.offers ?? [])[p.offer ?? 0])}`;
    if (decision === "speech") return (p.amount ?? 0) ? `take ${count(p.amount, "vote")} of ${group(ctx, p.voterGroup ?? 0)} from ${who(ctx, p.seat ?? 0)}` : "no reduction";
    return `${this.decisionTitle(decision)}${parts.length ? `: ${parts.join(", ")}` : ""}`;
  },
  tell(e, event, ctx) {
    const k = String(e.kind ?? "").replace("SPIN_DOCTORS_EVENT_KIND_", "");
    const s = e.seat ?? -1;
    const w = s >= 0 ? who(ctx, s) : "The table";
    const whose = s >= 0 ? `${who(ctx, s)}’s` : "a";
    const other = (e.otherSeat ?? -1) >= 0 ? who(ctx, e.otherSeat) : "";
    const cards = e.cards ?? [];
    const loc = (e.locality ?? -1) >= 0 ? locality(ctx, e.locality) : "";
    const grp = (e.voterGroup ?? -1) >= 0 ? group(ctx, e.voterGroup) : "";
    const st = (e.staffer ?? -1) >= 0 ? staffer(ctx, e.staffer) : "a Staffer";
    switch (k) {
      // One decision chooses the whole Staff (the rulebook's word), told to the others face down.
      case "STAFFER_CHOSEN": return e.amount === 6 ? `${w} took a ready-made Staff` : `${w} chose a Staff${(e.staffer ?? -1) >= 0 ? `: ${st}` : ""}`;
      case "PROGRAMME_CHOSEN": return `${w} chose a Programme card${cards.length ? `: ${cardText(ctx, cards[0])}` : ""}`;
      case "STAFFS_CHOSEN": return "Every Staff and Programme is chosen";
      case "PROGRAMME_REVEALED": return `${w} turned up ${cards.map((c) => cardText(ctx, c)).join(", ")}`;
      case "ROUND_STARTED": return `Round ${e.amount ?? 0} begins`;
      case "NEWS_REVEALED": return `News on ${newsFieldName(ctx, e.amount ?? 0)}: ${cards.map((c) => cardText(ctx, c)).join(", ")}`;
      case "STAFFER_PLAYED": return `${w} played ${st} on ${fieldName(ctx, e.field ?? 0)}${e.amount === 1 ? "" : " face down"}`;
      case "STAFFERS_REVEALED": return "Staffers turned up: " + cards.map((item) => {
        const [seat, order, on] = item.split(":").map(Number);
        return `${who(ctx, seat)} ${staffer(ctx, order)} on ${fieldName(ctx, on)}`;
      }).join("; ");
      case "ACTION": {
        const said = [loc, other, grp, cards.map((c) => cardText(ctx, c)).join(", ")].filter(Boolean).join(", ");
        return `${whose} ${st} used ${action(ctx, e.action)}${said ? ` on ${said}` : ""}${e.amount ? ` for ${count(e.amount, "point")}` : ""}`;
      }
      case "DECLINED": return `${whose} ${st} did not act`;
      case "STAFFER_FORGOES": return `${whose} ${st} forgoes its action`;
      case "VOTES_LOST_TO_TRAIT": return `${w} loses ${count(e.amount ?? 0, "vote")} of ${grp} to Down with Dirty Politics`;
      case "TURNOUT_TOKEN": return `${w} placed Support on the Turnout card of ${loc}${other ? `, pushing off ${other}` : ""}`;
      case "ACTIVITY_TOKENS": return `${w} put ${e.amount ?? 0} Support on the Activity stack of ${loc}`;
      case "TOPIC_TOKEN": return `${w} placed Support on a ${e.amount ? "Red" : "White"} field of the Topic in ${loc}${other ? `, pushing off ${other}` : ""}`;
      case "PUSHED_OFF_WHITE": return `${w} gains 1 vote of ${grp} (pushed off a White field)`;
      case "BROADCAST": return `Media broadcast: ${cards.map((c) => cardText(ctx, c)).join(", ")}`;
      case "NEWS_ARRANGED": return `${w} laid News on the Red fields`;
      case "NEWS_DISCARDED": return `News discarded: ${cards.map((c) => cardText(ctx, c)).join(", ")}`;
      case "CONSENT": return `${w} ${e.amount ? "agreed to" : "refused"} the Topic change of ${other}`;
      case "TOPIC_CHANGED": return `Topic card changed in ${loc}: ${cards.map((c) => cardText(ctx, c)).join(" for ")}`;
      case "BLACKMAIL_ANSWERED": return `${w} ${e.amount ? `paid ${count(e.amount, "point")} to` : "refused to pay"} ${other}`;
      case "FAVOURITE": return `${w} becomes the Favourite`;
      case "TURNOUT_CHANGED": return `Turnout of ${grp} moves by ${(e.amount ?? 0) >= 0 ? "+" : ""}${e.amount ?? 0}`;
      case "SPEECH_VOTE": return `${w} gains ${count(e.amount ?? 0, "vote")} of ${grp} by the speech`;
      case "SPEECH": return e.amount ? `${w} took ${count(e.amount, "vote")} of ${grp} from ${other}` : `${w} gave up reducing votes`;
      case "LOCALITY_VOTES": return `${w} gains ${count(e.amount ?? 0, "vote")} of ${grp} in ${loc}`;
      case "STAFF_CHANGE_MADE": return `${w} made the Staff change after the Poll`;
      case "PROGRAMME_CHANGE_MADE": return `${w} made the Programme change after the Poll`;
      case "POLL_CHANGES_MADE": return "Every change after the Poll is made";
      case "WINNER_NAMED": return `The Favourite named ${other} the winner`;
      case "BUDGET_HANDED": return `${w} handed ${count(e.amount ?? 0, "Budget point")} to ${other}`;
      case "OFFER_MADE": return `${w} offers ${count(e.amount ?? 0, "Budget point")} to ${other} to ${termText(ctx, e.term)} (held by the table)`;
      case "OFFER_WITHDRAWN": return `${w} withdrew the offer of ${count(e.amount ?? 0, "point")} to ${other}`;
      case "OFFER_DECLINED": return `${other} declined the ${count(e.amount ?? 0, "point")} of ${w}`;
      case "OFFER_KEPT": return `${other} did ${termText(ctx, e.term)}: ${whose} ${count(e.amount ?? 0, "point")} go to ${other}`;
      case "OFFER_RETURNED": return `${other} did not ${termText(ctx, e.term)}: ${whose} ${count(e.amount ?? 0, "point")} return`;
      case "SCANDAL_NOT_FOUND": return `No Scandal of ${other} was found in the News deck`;
      case "TIE_ORDERED": return `The Favourite lets ${whose} Staffer go next`;
      default: return capital(enumWords(e.kind, "SPIN_DOCTORS_EVENT_KIND_")) + (s >= 0 ? ` (${w})` : "");
    }
  },
};
