// Wahlspiel at the table: the board as a track with the parties' pieces, the candidates in the race
// with their votes, your voter and event cards with their text, the ballot box, coalitions, opinion
// ballots and run-offs, and the three elections' results. Drawn from the view and the catalogue.

import { capital, count, enumWords, h, listWords, section, stat } from "../dom.js";

const FIELD_SHORT = {
  START: ["Start", "▶"], VOTER_PURCHASE: ["Buy voters", "€V"], EVENT_PURCHASE: ["Buy events", "€E"], PRIZE: ["Prize", "Prize"],
  VOTING: ["Voting", "Vote"], SENSATION: ["Sensation", "★"], CANDIDATE_CHANGE: ["Candidate change", "⇄"], COALITION: ["Coalition", "Coal."],
  KANTONSRAT: ["Cantonal council", "KR"], NATIONALRAT: ["National council", "NR"], BUNDESRAT: ["Federal Council", "BR"],
};
const fieldKind = (kind) => String(kind ?? "").replace("WAHLSPIEL_FIELD_KIND_", "");
const fieldName = (kind) => FIELD_SHORT[fieldKind(kind)]?.[0] ?? enumWords(kind, "WAHLSPIEL_FIELD_KIND_");
const cardKind = (kind) => enumWords(kind, "WAHLSPIEL_CARD_KIND_");
const ROUND_NAMES = { 1: "cantonal council", 2: "national council", 3: "Federal Council" };

function index(ctx) {
  if (!ctx.cache.w) {
    const cat = ctx.cat;
    const politicians = new Map((cat.politicians ?? []).map((p) => [p.politician.politicianId, p.politician]));
    for (const p of ctx.kindView.politicians ?? []) politicians.set(p.politicianId, p);
    const cards = new Map([...(cat.voters ?? []), ...(cat.events ?? [])].map((c) => [c.cardId, c]));
    for (const party of ctx.kindView.parties ?? []) for (const c of [...(party.voters ?? []), ...(party.events ?? [])]) cards.set(c.cardId, { ...cards.get(c.cardId), ...c });
    ctx.cache.w = { politicians, cards };
  }
  return ctx.cache.w;
}

const polName = (ctx, id) => index(ctx).politicians.get(id)?.name ?? id;
const cardText = (ctx, id) => index(ctx).cards.get(id)?.text ?? id;
const party = (ctx, i) => (ctx.kindView.parties ?? []).find((p) => (p.party ?? 0) === i);
/** A party as its player: "Ada". */
const partyName = (ctx, i) => ctx.seatName(i) || party(ctx, i)?.name || `party ${i}`;
const colourOf = (ctx, i) => party(ctx, i)?.colour ?? "grey";

function piece(colour, title) {
  return h("span", { class: `token piece c-${colour}`, title, style: `background:${colour}` });
}

function track(ctx) {
  const k = ctx.kindView;
  const fields = (k.board ?? []).length ? k.board : ctx.cat.board ?? [];
  return h("div", { id: "track", class: "track" }, fields.map((f, i) => {
    const kind = fieldKind(f.kind);
    const [long, short] = FIELD_SHORT[kind] ?? [kind, "?"];
    const here = (k.parties ?? []).filter((p) => (p.position ?? 0) === i);
    const prize = f.prizeVoters ? `+${f.prizeVoters}V` : f.prizeEvents ? `+${f.prizeEvents}E` : "";
    return h("div", { class: `field f-${kind.toLowerCase()}`, dataset: { position: i }, title: `${i} ${long}${prize ? ` ${prize}` : ""}` },
      h("span", { class: "field-no" }, String(i)),
      h("span", { class: "field-kind" }, prize || short),
      h("span", { class: "pieces" }, here.map((p) => piece(p.colour, partyName(ctx, p.party ?? 0)))));
  }));
}

function politicianLine(ctx, id) {
  const p = index(ctx).politicians.get(id);
  if (!p) return id;
  return `${p.name} (${p.sex}, ${p.age}, ${p.occupation}; ${(p.symbols ?? []).join(" ")}${(p.traits ?? []).length ? `; ${(p.traits ?? []).join(", ").replace(/_/g, " ")}` : ""})`;
}

/** A politician as a card: what voter cards and events ask about (sex, age, occupation, symbols, traits). */
function politicianCard(ctx, id) {
  const p = index(ctx).politicians.get(id);
  if (!p) return null;
  const votes = (ctx.kindView.candidates ?? []).find((c) => c.politicianId === id)?.votes;
  return h("span", { class: "card pcard", dataset: { politician: id } },
    h("span", { class: "card-amount" }, p.name),
    h("span", { class: "card-label" }, `${p.sex === "f" ? "woman" : "man"}, ${p.age}, ${p.occupation}`),
    h("span", { class: "card-cost" }, [...(p.symbols ?? []), ...(p.traits ?? []).map((t) => t.replace(/_/g, " "))].join(" · ")),
    votes !== undefined ? h("span", { class: "small" }, count(votes, "vote")) : null);
}

function wcard(ctx, card, extra = "") {
  const c = typeof card === "string" ? { cardId: card, ...index(ctx).cards.get(card) } : card;
  const event = c.cardId?.startsWith("E");
  return h("span", { class: `card wcard ${event ? "event" : "voter"} ${extra}`, title: c.cardId, dataset: { card: c.cardId } },
    h("span", { class: "card-amount" }, event ? "Event" : "Voter"),
    h("span", { class: "card-label" }, c.text ?? c.cardId));
}

function board(view, k, ctx) {
  const out = [];
  const mine = party(ctx, ctx.me ?? -1);
  if (mine && ctx.me !== undefined) {
    const standing = new Set((k.candidates ?? []).map((c) => c.politicianId));
    const bench = (mine.politicianIds ?? []).filter((id) => !standing.has(id));
    out.push(section("hand", `Your hand · ${mine.name}`,
      h("div", { class: "row" }, stat("money", `${mine.money ?? 0} francs`), stat("voters", mine.voterCount ?? 0), stat("events", mine.eventCount ?? 0)),
      h("div", { class: "cards-row voters" }, (mine.voters ?? []).map((c) => wcard(ctx, c))),
      h("div", { class: "cards-row events" }, (mine.events ?? []).map((c) => wcard(ctx, c))),
      bench.length ? h("details", { id: "other-politicians" }, h("summary", {}, `Your other politicians (${bench.length})`),
        h("ul", { class: "small" }, bench.map((id) => h("li", {}, politicianLine(ctx, id))))) : null));
  }
  out.push(section("board", `Round ${k.round ?? 1}: ${ROUND_NAMES[k.round ?? 1] ?? ""} · ${enumWords(k.step, "WAHLSPIEL_STEP_")}`,
    h("div", { class: "row small" },
      k.lastRoll ? stat("last roll", k.lastRoll) : null,
      stat("voter stack", k.voterStackCount ?? 0), stat("event stack", k.eventStackCount ?? 0),
      stat("ballot box", (k.ballotBoxCardIds ?? []).length), k.goalVotes ? stat("goal votes left", k.goalVotes) : null),
    track(ctx)));
  out.push(section("parties", "Parties", h("div", { class: "parties" }, (k.parties ?? []).map((p) => h("div", {
    class: `party${(p.party ?? 0) === ctx.me ? " mine" : ""}${(p.party ?? 0) === (k.currentParty ?? -1) ? " current" : ""}`, dataset: { party: p.party ?? 0 },
  },
  h("h3", {}, piece(p.colour, p.colour), " ", p.name, (p.party ?? 0) === (k.currentParty ?? -1) ? h("span", { class: "turn-mark" }, " ◀ to play") : null),
  h("div", { class: "muted small" }, partyName(ctx, p.party ?? 0)),
  h("div", {}, stat("field", p.position ?? 0, { class: "stat position" }), stat("francs", p.money ?? 0, { class: "stat money" }),
    stat("voters", p.voterCount ?? 0, { class: "stat voter-count" }), stat("events", p.eventCount ?? 0, { class: "stat event-count" }),
    p.trades ? stat("trades", p.trades) : null, p.arrived ? h("b", {}, " at the goal") : null),
  h("ul", { class: "candidates" }, (k.candidates ?? []).filter((c) => (c.party ?? 0) === (p.party ?? 0)).map((c) =>
    h("li", { class: `candidate${c.inRace ? "" : " out"}`, dataset: { politician: c.politicianId } },
      h("b", { class: "votes" }, String(c.votes ?? 0)), (c.votes ?? 0) === 1 ? " vote · " : " votes · ", c.name || polName(ctx, c.politicianId),
      c.councillor ? " · national councillor" : "", c.inRace ? "" : " · out of the race"))))))));
  const extras = [];
  if (k.ballot?.card) {
    const b = k.ballot;
    extras.push(h("div", { id: "ballot" }, h("h3", {}, `Opinion ballot cast by ${partyName(ctx, b.caster ?? 0)}`),
      wcard(ctx, b.card), h("p", {}, "About ", listWords((b.politicianIds ?? []).map((id) => polName(ctx, id)))),
      h("p", { class: "small" }, "Judges: ", listWords((b.judges ?? []).map((j) => partyName(ctx, j)))),
      h("ul", { class: "small" }, (b.verdicts ?? []).map((v) => h("li", {}, `${partyName(ctx, v.judge ?? 0)}: ${v.verdict ? "yes" : "no"} on ${polName(ctx, v.politicianId)}`)))));
  }
  if (k.coalition && (k.coalition.partner !== undefined || k.coalition.party !== undefined)) {
    const c = k.coalition;
    const proposer = c.proposer ?? c.party ?? 0;
    extras.push(h("div", { id: "coalition" }, h("h3", {}, `Coalition of ${partyName(ctx, c.party ?? 0)} and ${partyName(ctx, c.partner ?? 0)}`),
      h("p", { class: "small" }, `${c.offers ?? 0} offers made`),
      c.draft ? h("p", { class: "draft" }, `${partyName(ctx, proposer)} is drafting: ${offerText(ctx, c.draft)}`) : null,
      c.pending ? h("p", { class: "pending-offer" }, `Open offer of ${partyName(ctx, proposer)}: ${offerText(ctx, c.pending)}`) : null,
      c.handedCount ? h("p", { class: "small" }, `${c.handedCount} asked cards handed over`) : null,
      (c.handedCards ?? []).length ? h("div", { class: "cards-row" }, c.handedCards.map((card) => wcard(ctx, card))) : null));
  }
  if ((k.runoff?.politicianIds ?? []).length) {
    const r = k.runoff;
    extras.push(h("div", { id: "runoff" }, h("h3", {}, `Run-off for ${r.seats ?? 1} seat(s)`),
      h("p", {}, "Among ", listWords((r.politicianIds ?? []).map((id) => polName(ctx, id)))),
      h("p", { class: "small" }, "Decided: ", listWords((r.decidedParties ?? []).map((p) => partyName(ctx, p))) || "nobody yet"),
      r.sentCard?.cardId ? h("p", { class: "small" }, "You sent ", wcard(ctx, r.sentCard)) : null));
  }
  const played = k.eventDiscardCardIds ?? [];
  extras.push(h("div", { id: "played-events" }, h("h3", {}, `Events played (${played.length})`),
    h("ul", { class: "small played-list" }, played.slice().reverse().map((id) => h("li", { dataset: { card: id } }, cardText(ctx, id))))));
  out.push(section("table-state", "On the table", extras));
  out.push(section("elections", "Elections", elections(ctx)));
  return out;
}

function elections(ctx) {
  const k = ctx.kindView;
  const rows = [
    ["Cantonal council", k.cantonalCouncillorIds ?? []],
    ["National council", k.nationalCouncillorIds ?? []],
    ["Federal Council", k.federalCouncillorId ? [k.federalCouncillorId] : []],
  ];
  const owner = (id) => {
    const c = (k.candidates ?? []).find((x) => x.politicianId === id);
    const p = c ? c.party : (k.parties ?? []).find((x) => (x.politicianIds ?? []).includes(id))?.party;
    return p !== undefined ? ` (${partyName(ctx, p)})` : "";
  };
  return h("div", { class: "elections" }, rows.map(([title, ids]) => h("div", { class: "election" },
    h("h3", {}, title), ids.length ? h("ul", {}, ids.map((id) => h("li", {}, polName(ctx, id), owner(id)))) : h("p", { class: "muted small" }, "not yet elected"))));
}

/** "a" or "an" before a word, as it is said ("an event card"). */
const article = (word) => (/^[aeiou]/i.test(word) ? `an ${word}` : `a ${word}`);

/** An offer (a bundle of cards and francs each way) in words; cards are named only where the view shows them. */
function offerText(ctx, o) {
  const count = (n, what) => (n ? `${n} ${what}${n === 1 ? "" : "s"}` : "");
  const gives = [
    ...(o.giveCards ?? []).map((c) => `“${c.text ?? cardText(ctx, c.cardId)}”`),
    (o.giveCards ?? []).length ? "" : count(o.giveVoterCount, "voter card"),
    (o.giveCards ?? []).length ? "" : count(o.giveEventCount, "event card"),
    o.giveMoney ? `${o.giveMoney} francs` : "",
  ].filter(Boolean);
  const asks = [count(o.askVoterCount, "voter card"), count(o.askEventCount, "event card"), o.askMoney ? `${o.askMoney} francs` : ""].filter(Boolean);
  return `gives ${listWords(gives) || "nothing"} for ${listWords(asks) || "nothing"}`;
}

const CARD_FIELDS = new Set(["cardId", "giveCardId"]);
const POLITICIAN_FIELDS = new Set(["politicianId", "politicianIds", "withdrawPoliticianId", "nominatePoliticianId"]);

export default {
  // Options offered when a table is created (names as in WahlspielOptions' JSON).
  options: [
    { key: "gnomes", label: "The Gnomes", type: "checkbox" },
    { key: "singleNationalCandidate", label: "One national candidate (5–6 players)", type: "checkbox" },
  ],
  headline(ctx) {
    const k = ctx.kindView;
    // Whoever the table waits for: the party whose turn it is, or another (an offer's partner
    // answering, judges, run-off voters), which the headline named as the turn's party.
    const acting = (ctx.view.toAct ?? []).map((seat) => partyName(ctx, seat));
    const waiting = acting.length ? listWords(acting) : k.currentParty !== undefined ? partyName(ctx, k.currentParty) : "";
    const who = waiting && k.step !== "WAHLSPIEL_STEP_FINISHED" ? ` · ${waiting} to play` : "";
    return h("p", { class: "headline" }, `Round ${k.round ?? 1} · ${enumWords(k.step, "WAHLSPIEL_STEP_")}${who}${k.lastRoll ? ` · rolled ${k.lastRoll}` : ""}`);
  },
  seatNote(seat, ctx) {
    const p = party(ctx, seat);
    return p ? piece(p.colour, p.name) : null;
  },
  board,
  dialog(moves, ctx) {
    const decision = Object.keys(Object.values(moves[0])[0] ?? {})[0];
    const c = ctx.kindView.coalition ?? {};
    if (decision === "answerTrade") {
      // Every move names a card to give: the offer is accepted, and the cards asked for are handed over.
      const handing = moves.every((m) => Object.values(m)[0]?.answerTrade?.cardId);
      if (handing || !c.pending) return "Hand over the cards asked for";
      return `${partyName(ctx, c.proposer ?? c.party ?? 0)} offers you a trade: ${offerText(ctx, c.pending)}`;
    }
    if (decision === "judge") return "Opinion ballot: your verdict";
    if (decision === "sendRunoffVoter") return "Run-off: send a voter?";
    if (decision === "offerTrade" || decision === "proposeOffer") return "Coalition: draft an offer, one item at a time";
    return null;
  },
  decisionTitle(decision) {
    return {
      nominate: "nominate a candidate", buyVoters: "buy voters", buyEvents: "buy events", castVoter: "cast a voter card",
      playEvent: "play an event", changeCandidate: "change a candidate", choosePartner: "choose a coalition partner",
      offerTrade: "add to the offer", proposeOffer: "make the offer", answerTrade: "answer the offer", judge: "judge a candidate", goalVote: "give a goal vote",
      sendRunoffVoter: "send a run-off voter", pass: "pass",
    }[decision] ?? decision;
  },
  fieldPrompt(field, decision) {
    if (field === "count") return decision === "buyEvents" ? "how many events" : "how many voters";
    return {
      politicianId: "which candidate", politicianIds: "for which candidates", cardId: decision === "answerTrade" ? "which card to give" : "which card",
      giveCardId: "card you give", giveMoney: "francs you give", askKind: "card you ask for", askMoney: "francs you ask for",
      party: "which party", accept: "accept?", verdict: "verdict", withdrawPoliticianId: "withdraw", nominatePoliticianId: "field instead",
    }[field] ?? field;
  },
  stepper: (field) => ["count", "giveMoney", "askMoney"].includes(field),
  valueLabel(field, value, ctx, decision) {
    if (CARD_FIELDS.has(field)) return value ? cardText(ctx, value) : "no card";
    if (POLITICIAN_FIELDS.has(field)) return Array.isArray(value) ? (value.length ? listWords(value.map((id) => polName(ctx, id))) : "nobody") : value ? polName(ctx, value) : "nobody";
    if (field === "party") return partyName(ctx, value);
    if (field === "askKind" || field === "giveKind") return value && value !== "WAHLSPIEL_CARD_KIND_UNSPECIFIED" ? article(`${cardKind(value)} card`) : "no card";
    if (field === "accept") return value ? "accept" : "refuse";
    if (field === "verdict") return value ? "yes, fits" : "no";
    if (field === "count") return `${value} (${value * ((decision === "buyEvents" ? ctx.cat.money?.eventPrice : ctx.cat.money?.voterPrice) ?? 0)} francs)`;
    if (field.endsWith("Money")) return `${value} francs`;
    return String(value);
  },
  itemNode(field, value, ctx) {
    if (CARD_FIELDS.has(field) && value) return wcard(ctx, value);
    if (POLITICIAN_FIELDS.has(field) && value) return politicianCard(ctx, value);
    return null;
  },
  moveText(decision, p, ctx) {
    const pol = (id) => polName(ctx, id);
    switch (decision) {
      case "nominate": return `nominate ${pol(p.politicianId)}`;
      case "buyVoters": return `buy ${count(p.count ?? 0, "voter")}`;
      case "buyEvents": return `buy ${count(p.count ?? 0, "event")}`;
      case "castVoter": return `cast “${cardText(ctx, p.cardId)}”${(p.politicianIds ?? []).length ? ` for ${listWords(p.politicianIds.map(pol))}` : ""}`;
      case "playEvent": return `play “${cardText(ctx, p.cardId)}”${(p.politicianIds ?? []).length ? ` on ${listWords(p.politicianIds.map(pol))}` : ""}`;
      case "changeCandidate": return `withdraw ${pol(p.withdrawPoliticianId)} and field ${pol(p.nominatePoliticianId)}`;
      case "choosePartner": return `coalition with ${partyName(ctx, p.party ?? 0)}`;
      case "offerTrade": {
        const gives = [p.giveCardId ? `“${cardText(ctx, p.giveCardId)}”` : "", p.giveMoney ? `${p.giveMoney} francs` : ""].filter(Boolean).join(" and ") || "nothing";
        const asks = [p.askKind && p.askKind !== "WAHLSPIEL_CARD_KIND_UNSPECIFIED" ? article(`${cardKind(p.askKind)} card`) : "", p.askMoney ? `${p.askMoney} francs` : ""].filter(Boolean).join(" and ") || "nothing";
        return `add to the offer: give ${gives}, ask ${asks}`;
      }
      case "proposeOffer": return "make the offer as drafted";
      case "answerTrade": return p.accept ? `accept${p.cardId ? `, giving “${cardText(ctx, p.cardId)}”` : ""}` : "refuse";
      case "judge": return `${p.verdict ? "yes" : "no"}${p.politicianId ? ` on ${pol(p.politicianId)}` : ""}`;
      case "goalVote": return `goal vote for ${pol(p.politicianId)}`;
      case "sendRunoffVoter": return p.cardId ? `send “${cardText(ctx, p.cardId)}”` : "send no voter";
      case "pass": return "pass";
      default: return decision;
    }
  },
  tell(e, event, ctx) {
    const [kind, d] = Object.entries(e)[0] ?? [];
    if (!kind) return null;
    const p = (i) => partyName(ctx, i ?? 0);
    const pol = (id) => polName(ctx, id);
    const pols = (ids) => listWords((ids ?? []).map(pol));
    switch (kind) {
      case "nominated": return `${p(d.party)} nominated ${pol(d.politicianId)}`;
      case "dieRolled": return `${p(d.party)} rolled ${d.pips ?? 0} and moved to field ${d.position ?? 0} (${fieldName(d.field)})${d.bounced ? ", bouncing back from the goal" : ""}`;
      case "cardsDrawn": return `${p(d.party)} took ${listWords([d.voterCount ? count(d.voterCount, "voter") : "", d.eventCount ? count(d.eventCount, "event") : ""]) || "nothing"}${d.cost ? ` for ${d.cost} francs` : " as a prize"}`;
      case "votesChanged": return `${pol(d.politicianId)} ${(d.delta ?? 0) >= 0 ? "gains" : "loses"} ${count(Math.abs(d.delta ?? 0), "vote")}, now ${d.votes ?? 0}`;
      case "voterCast": return `${p(d.party)} cast “${d.card?.text ?? ""}”${(d.politicianIds ?? []).length ? ` for ${pols(d.politicianIds)}` : ""}`;
      case "ballotOpened": return `A ballot on “${d.card?.opinion || d.card?.text || ""}” about ${pols(d.politicianIds)}; judges: ${listWords((d.judges ?? []).map(p))}`;
      case "judged": return d.politicianId ? `${p(d.judge)} judged ${pol(d.politicianId)}: ${d.verdict ? "yes" : "no"}` : `${p(d.judge)} has given a verdict`;
      case "ballotDecided": return `The ballot found ${pols(d.politicianIds) || "nobody"} fitting`;
      case "moneyChanged": return `${p(d.party)} ${(d.delta ?? 0) >= 0 ? "gets" : "pays"} ${Math.abs(d.delta ?? 0)} francs (${String(d.reason ?? "").toLowerCase().replace(/_/g, " ")}), now ${d.money ?? 0}`;
      case "eventPlayed": return `${p(d.party)} played “${d.card?.text ?? ""}”${(d.politicianIds ?? []).length ? ` on ${pols(d.politicianIds)}` : ""}${d.effective ? "" : " (no effect)"}`;
      case "candidateChanged": return `${p(d.party)} withdrew ${pol(d.withdrawnPoliticianId)} and fielded ${pol(d.nominatedPoliticianId)}`;
      case "candidateRetired": return `${pol(d.politicianId)} leaves the race (${String(d.reason ?? "").toLowerCase().replace(/_/g, " ")})`;
      case "coalitionChanged": return `The coalition of ${p(d.party)} and ${p(d.partner)} ${d.ended ? "ends" : "is formed"}`;
      case "tradeOffered": return `${p(d.party)} offers ${p(d.partner)} a trade: ${offerText(ctx, d.offer ?? {})}`;
      case "tradeAnswered": return `${p(d.partner)} ${d.accepted ? "accepts" : "refuses"} the offer of ${p(d.party)}`;
      case "goalReached": return `${p(d.party)} reached the ${fieldName(d.goal)} goal${d.first ? " first" : ""}`;
      case "runoffOpened": return `A run-off for ${d.seats ?? 1} seat(s) among ${pols(d.politicianIds)}`;
      case "runoffVoterSent": return `${p(d.party)} decided on a run-off voter${d.card?.cardId ? `: “${d.card.text}”` : ""}`;
      case "runoffVotersRevealed": return "Run-off voters: " + (d.sent ?? []).map((s) => `${p(s.party)} ${s.card?.cardId ? `“${s.card.text}”` : "none"}`).join("; ");
      case "runoffCardTurned": return `The voter stack turns up “${d.card?.text ?? ""}”`;
      case "runoffLots": return `Lots decide the run-off: ${pols(d.politicianIds)}`;
      case "electionHeld": return `Election of the ${ROUND_NAMES[d.round ?? 1] ?? ""}: ${pols(d.politicianIds)} elected`;
      default: return null;
    }
  },
  outcomeExtra(ctx) {
    return elections(ctx);
  },
};
