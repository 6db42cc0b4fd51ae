// Stimmvieh at the table: your politicians as cards, the display and the two stacks, every party's
// collected stacks (top card and count), face-up top candidates and Angelus's face-up hand.
// Everything comes from the view (and card texts from the catalogue); moves only from legal moves.

import { capital, enumWords, h, listWords, section, stat } from "../dom.js";

const party = (ctx, index) => (ctx.kindView.parties ?? []).find((p) => (p.party ?? 0) === index);

/** "Union of the Herd (Ada)", or "Angelus" for the dummy party. */
function partyName(ctx, index) {
  const p = party(ctx, index);
  if (!p) return `party ${index}`;
  const who = p.seat !== undefined ? ctx.seatName(p.seat) : "";
  return who ? `${p.name} (${who})` : p.name;
}

const amount = (card) => (card.type === "STIMMVIEH_CARD_TYPE_DONATION" ? `${card.amount} k€` : `${card.amount}k votes`);
const cardText = (card) => (card?.cardId ? `${card.label} (${amount(card)}, influence ${card.influence})` : "no card");

/** A vote or donation card, face up. */
function cardNode(card, extra = {}) {
  if (!card?.cardId) return h("span", { class: "card empty" }, "—");
  const donation = card.type === "STIMMVIEH_CARD_TYPE_DONATION";
  return h("span", { class: `card ${donation ? "donation" : "vote"}`, title: card.cardId, dataset: { card: card.cardId }, ...extra },
    h("span", { class: "card-amount" }, amount(card)),
    h("span", { class: "card-label" }, card.label),
    h("span", { class: "card-cost" }, `influence ${card.influence}`));
}

/** A politician card by influence. */
function politician(influence, note, label) {
  return h("span", { class: "politician", dataset: { influence }, "aria-label": label ?? null }, h("b", {}, String(influence)), note ? h("small", {}, note) : null);
}

/** How a politician of the current party's hand is played, in words for a screen reader (the
 * display refills differently for each): "politician 3, top candidate". */
function placed(ctx, influence) {
  const p = party(ctx, ctx.kindView.currentParty ?? 0);
  const tops = p?.topCandidates ?? [];
  return `politician ${influence}, ${tops.includes(influence) ? "top candidate" : "backbencher"}`;
}

function stack(label, s, cls) {
  const count = s?.count ?? 0;
  return h("div", { class: `stack ${cls}` },
    h("div", { class: "muted small" }, `${label} `, h("span", { class: "count" }, `×${count}`), s?.total !== undefined && s?.total !== null && s?.cards?.length !== undefined && s.total ? ` · total ${s.total}` : ""),
    count ? cardNode(s.topCard) : h("span", { class: "card empty" }, "none"));
}

function partyPanel(p, ctx) {
  const k = ctx.kindView;
  const mine = p.seat !== undefined && p.seat === ctx.me;
  const current = (p.party ?? 0) === (k.currentParty ?? 0) && k.phase === "STIMMVIEH_PHASE_CAMPAIGN";
  const faceUp = p.topCandidates ?? [];
  const chosen = p.chosenTopCandidates ?? [];
  let tops;
  if (faceUp.length) tops = faceUp.map((i) => politician(i));
  else if (chosen.length) tops = [chosen.map((i) => politician(i, "face down"))];
  else if (p.topCandidatesChosen && k.phase !== "STIMMVIEH_PHASE_CHOOSING_TOP_CANDIDATES") tops = h("span", { class: "muted" }, "none left");
  else if (p.topCandidatesChosen) tops = h("span", { class: "muted" }, "chosen, face down");
  else tops = h("span", { class: "muted" }, "choosing…");
  const backbenchers = p.angelus || mine
    ? (p.backbenchers ?? []).map((i) => politician(i))
    : null;
  return h("div", { class: `party${mine ? " mine" : ""}${current ? " current" : ""}`, dataset: { party: p.party ?? 0 } },
    h("h3", {}, p.name, current ? h("span", { class: "turn-mark" }, " ◀ to play") : null),
    // Angelus goes to the start player, who is known once the top candidates are turned up.
    h("div", { class: "muted small" }, p.seat !== undefined ? ctx.seatName(p.seat)
      : k.angelusHolder !== undefined ? `dummy party, played by ${ctx.seatName(k.angelusHolder)}` : "dummy party, played by the start player (not yet known)"),
    h("div", { class: "row tops" }, h("span", { class: "small" }, "Top candidates "), tops),
    h("div", { class: "row backs" }, h("span", { class: "small" }, "Backbenchers "), backbenchers,
      stat("in hand", p.backbencherCount ?? 0, { class: "stat backbencher-count" })),
    (p.played ?? []).length
      ? h("div", { class: "row party-played muted small" }, "Played this campaign ", (p.played ?? []).map((i) => politician(i)))
      : null,
    h("div", { class: "stacks" }, stack("Votes", p.votes, "votes"), stack("Donations", p.donations, "donations")),
    (k.campaigns ?? 1) > 1 ? stat("campaign points", p.campaignPoints ?? 0) : null);
}

function board(view, k, ctx) {
  const out = [];
  const mine = (k.parties ?? []).find((p) => p.seat !== undefined && p.seat === ctx.me);
  if (mine) {
    const faceUp = mine.topCandidates ?? [];
    const chosen = mine.chosenTopCandidates ?? [];
    out.push(section("hand", `Your hand · ${mine.name}`,
      h("div", { class: "row" }, h("span", { class: "small" }, "Top candidates "),
        h("span", { class: "top-candidates" }, (faceUp.length ? faceUp : chosen).map((i) => politician(i, faceUp.length ? "" : "face down"))),
        !faceUp.length && !chosen.length ? h("span", { class: "muted" }, ctx.kindView.phase === "STIMMVIEH_PHASE_CHOOSING_TOP_CANDIDATES" ? "not chosen yet" : "none left") : null),
      h("div", { class: "row" }, h("span", { class: "small" }, "Backbenchers "),
        h("span", { class: "backbenchers" }, (mine.backbenchers ?? []).map((i) => politician(i))))));
  }
  out.push(section("display-section", `Campaign ${k.campaign ?? 1} of ${k.campaigns ?? 1} · round ${k.round ?? 0}`,
    h("div", { id: "display", class: "cards-row" }, (k.display ?? []).map((c) => cardNode(c))),
    h("div", { class: "stacks" },
      h("div", { class: "stack vote-stack" }, h("div", { class: "muted small" }, "Vote stack ", h("span", { class: "count" }, `×${k.voteStackCount ?? 0}`)), cardNode(k.voteStackTop)),
      h("div", { class: "stack donation-stack" }, h("div", { class: "muted small" }, "Donation stack ", h("span", { class: "count" }, `×${k.donationStackCount ?? 0}`)), cardNode(k.donationStackTop))),
    (k.topCandidateDiscards ?? []).length || (k.backbencherDiscards ?? []).length
      ? h("div", { class: "small played" }, "Played: top candidates ", (k.topCandidateDiscards ?? []).join(" ") || "—", " · backbenchers ", (k.backbencherDiscards ?? []).join(" ") || "—")
      : null));
  out.push(section("parties", "Parties", h("div", { class: "parties" }, (k.parties ?? []).map((p) => partyPanel(p, ctx)))));
  if ((k.campaignResults ?? []).length) out.push(section("campaign-results", "Election nights", resultsTable(k.campaignResults, ctx)));
  return out;
}

function resultsTable(results, ctx) {
  return (results ?? []).map((night) => h("div", { class: "night" },
    h("h3", {}, `Campaign ${night.campaign ?? ""}`),
    h("ol", {}, (night.results ?? []).slice().sort((a, b) => (a.rank ?? 0) - (b.rank ?? 0)).map((r) =>
      h("li", {}, `${partyName(ctx, r.party ?? 0)}: ${r.votes ?? 0}k votes, ${r.finalDonations ?? 0} k€${r.doubled ? " (doubled)" : ""}, ${r.points ?? 0} ${(r.points ?? 0) === 1 ? "point" : "points"}`)))));
}

const displayCard = (ctx, id) => (ctx.kindView.display ?? []).find((c) => c.cardId === id);

export default {
  // Options offered when a table is created (names as in StimmviehOptions' JSON).
  options: [
    { key: "campaigns", label: "Campaigns", type: "number", min: 1, max: 9, value: 1 },
    { key: "moderator", label: "Moderator breaks ties", type: "checkbox" },
  ],
  headline(ctx) {
    const k = ctx.kindView;
    const phase = enumWords(k.phase, "STIMMVIEH_PHASE_");
    return h("p", { class: "headline" }, `${capital(phase)}`, k.phase === "STIMMVIEH_PHASE_CAMPAIGN" ? ` · ${partyName(ctx, k.currentParty ?? 0)} to play` : "");
  },
  seatNote(seat, ctx) {
    const p = (ctx.kindView.parties ?? []).find((x) => x.seat === seat);
    const angelus = (ctx.kindView.parties ?? []).some((x) => x.angelus) && ctx.kindView.angelusHolder === seat;
    return p ? h("span", { class: "muted small" }, ` ${p.name}${angelus ? " + Angelus card" : ""}`) : null;
  },
  board,
  decisionTitle(decision, ctx) {
    if (decision === "chooseTopCandidates") return "choose your four top candidates";
    if (decision === "playPolitician") {
      const p = party(ctx, ctx.kindView.currentParty ?? 0);
      return p?.angelus ? "play a politician for Angelus" : "play a politician";
    }
    return decision;
  },
  fieldPrompt(field) {
    return { influences: "select four politicians", influence: "which politician", takeCardId: "which card to take" }[field] ?? field;
  },
  valueLabel(field, value, ctx) {
    if (field === "takeCardId") return value ? cardText(displayCard(ctx, value) ?? { cardId: value, label: value }) : "no card";
    if (Array.isArray(value)) return value.join(", ");
    return String(value);
  },
  itemNode(field, value, ctx) {
    if (field === "influences") return politician(value);
    if (field === "influence") return politician(value, null, placed(ctx, value));
    if (field === "takeCardId") return value ? cardNode(displayCard(ctx, value)) : h("span", { class: "card empty" }, "take no card");
    return null;
  },
  moveText(decision, params, ctx) {
    if (decision === "chooseTopCandidates") return `top candidates ${listWords((params.influences ?? []).map(String))}`;
    if (decision === "playPolitician") {
      const card = params.takeCardId ? displayCard(ctx, params.takeCardId) : null;
      return `play politician ${params.influence} and take ${card ? card.label : "no card"}`;
    }
    return decision;
  },
  tell(e, event, ctx) {
    const [kind, d] = Object.entries(e)[0] ?? [];
    if (!kind) return null;
    if (kind === "campaignStarted") return `Campaign ${d.campaign ?? 1} begins; the display shows ${listWords((d.display ?? []).map((c) => c.label))}`;
    if (kind === "topCandidatesChosen") {
      const secret = (d.influences ?? []).length ? `: ${(d.influences ?? []).join(" ")}` : "";
      return `${partyName(ctx, d.party ?? 0)}: top candidates chosen${secret}`;
    }
    if (kind === "topCandidatesRevealed") return "Top candidates turned up: " + (d.parties ?? []).map((p) => `${partyName(ctx, p.party ?? 0)} ${(p.influences ?? []).join(" ")} (total ${p.total ?? 0})`).join("; ");
    if (kind === "startPlayerChosen") return `${partyName(ctx, d.party ?? 0)} starts (${enumWords(d.reason, "")})`;
    if (kind === "politicianPlayed") {
      const took = d.taken?.cardId ? ` and took ${d.taken.label} (${amount(d.taken)})` : " and took no card";
      const p = party(ctx, d.party ?? 0);
      const by = p?.angelus ? `, chosen by ${ctx.seatName(d.decidedBy ?? 0)}` : "";
      return `${partyName(ctx, d.party ?? 0)} played influence ${d.influence}${d.topCandidate ? " (a top candidate)" : ""}${took}${by}`;
    }
    if (kind === "displayRefilled") return `The display gets ${d.card?.label ?? "a card"} (${d.card ? amount(d.card) : ""})`;
    if (kind === "electionNight") return `Election night of campaign ${d.campaign ?? 1}: ` + (d.results ?? []).slice().sort((a, b) => (a.rank ?? 0) - (b.rank ?? 0))
      .map((r) => `${r.rank}. ${partyName(ctx, r.party ?? 0)} ${r.votes ?? 0}k votes, ${r.finalDonations ?? 0} k€`).join("; ");
    if (kind === "angelusCardPassed") return `The Angelus card passes to ${ctx.seatName(d.seat ?? 0)}`;
    return null;
  },
};
