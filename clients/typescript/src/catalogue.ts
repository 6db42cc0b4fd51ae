// Typed look-ups in a kind's catalogue (GetGameKind): the cards, fields, Staffers and Actions
// that views, events and moves name by id.
//
// Load a catalogue once per kind and content version (`loadCatalogue`), wrap it with
// `catalogueIndex`, then look entries up by the ids a view carries:
//
//   const index = catalogueIndex(await loadCatalogue(api, "wahlspiel"));
//   if (index.kind === "wahlspiel") index.voter("V001").condition?.symbols;
//
// An id that is not in the catalogue throws UnknownCatalogueIdError: views and events only
// carry catalogue ids, so it means the catalogue is of another content version than the game.

import type { MessageShape } from "@bufbuild/protobuf";
import { GameService, type GetGameKindResponse } from "./gen/hustings/v1/game_service_pb.js";
import type {
  SpinDoctorsCatalogue,
  SpinDoctorsCatalogueAction,
  SpinDoctorsCatalogueField,
  SpinDoctorsCatalogueLocality,
  SpinDoctorsCatalogueNewsCard,
  SpinDoctorsCatalogueProgrammeCard,
  SpinDoctorsCatalogueStaffer,
  SpinDoctorsCatalogueTopicCard,
  SpinDoctorsCatalogueTurnoutCard,
  SpinDoctorsCatalogueVoterGroup,
  SpinDoctorsReadyMadeStaff,
} from "./gen/hustings/v1/spin_doctors_catalogue_pb.js";
import type { StimmviehCatalogue, StimmviehCatalogueCard, StimmviehCatalogueParty } from "./gen/hustings/v1/stimmvieh_catalogue_pb.js";
import type {
  WahlspielCatalogue,
  WahlspielCatalogueEvent,
  WahlspielCatalogueField,
  WahlspielCatalogueParty,
  WahlspielCatalogueVoter,
} from "./gen/hustings/v1/wahlspiel_catalogue_pb.js";
import type { WahlspielPolitician } from "./gen/hustings/v1/wahlspiel_pb.js";
import type { HustingsRest } from "./rest.js";

/** An id that the catalogue does not list (a catalogue of another content version). */
export class UnknownCatalogueIdError extends Error {
  constructor(
    readonly list: string,
    readonly id: string | number,
  ) {
    super(`no ${list} ${JSON.stringify(id)} in the catalogue`);
    this.name = "UnknownCatalogueIdError";
  }
}

/** One list of a catalogue, keyed by the id that views and moves use for its entries. */
export class CatalogueList<K extends string | number, T> {
  private readonly byId: Map<K, T>;

  constructor(
    readonly name: string,
    readonly entries: readonly T[],
    key: (entry: T) => K,
  ) {
    this.byId = new Map(entries.map((entry) => [key(entry), entry]));
  }

  /** The entry with this id; throws UnknownCatalogueIdError when there is none. */
  get(id: K): T {
    const found = this.byId.get(id);
    if (found === undefined) throw new UnknownCatalogueIdError(this.name, id);
    return found;
  }

  /** The entry with this id, or undefined. */
  find(id: K): T | undefined {
    return this.byId.get(id);
  }

  /** True when the catalogue lists this id. */
  has(id: K): boolean {
    return this.byId.has(id);
  }
}

/** GetGameKind for one kind: its facts, its catalogue and its content version. */
export async function loadCatalogue(api: HustingsRest, kind: string): Promise<GetGameKindResponse> {
  return api.call(GameService.method.getGameKind, { kind });
}

/** Stimmvieh's lists: a vote or donation card by card id, a party by number. */
export class StimmviehIndex {
  readonly kind = "stimmvieh" as const;
  readonly voteCards: CatalogueList<string, StimmviehCatalogueCard>;
  readonly donationCards: CatalogueList<string, StimmviehCatalogueCard>;
  readonly parties: CatalogueList<number, StimmviehCatalogueParty>;

  constructor(readonly catalogue: StimmviehCatalogue) {
    this.voteCards = new CatalogueList("vote card", catalogue.voteCards, (c) => c.cardId);
    this.donationCards = new CatalogueList("donation card", catalogue.donationCards, (c) => c.cardId);
    this.parties = new CatalogueList("party", catalogue.parties, (p) => p.party);
  }

  /** A vote or donation card ("V01", "D07"); the custom card "V00" is not in the catalogue. */
  card(cardId: string): StimmviehCatalogueCard {
    return this.voteCards.find(cardId) ?? this.donationCards.get(cardId);
  }
}

/** Wahlspiel's lists: politicians, voter and event cards by id, board fields by position. */
export class WahlspielIndex {
  readonly kind = "wahlspiel" as const;
  readonly politicians: CatalogueList<string, WahlspielPolitician>;
  readonly voters: CatalogueList<string, WahlspielCatalogueVoter>;
  readonly events: CatalogueList<string, WahlspielCatalogueEvent>;
  readonly board: CatalogueList<number, WahlspielCatalogueField>;
  readonly parties: CatalogueList<number, WahlspielCatalogueParty>;

  constructor(readonly catalogue: WahlspielCatalogue) {
    const politicians = catalogue.politicians.flatMap((p) => (p.politician ? [p.politician] : []));
    this.politicians = new CatalogueList("politician", politicians, (p) => p.politicianId);
    this.voters = new CatalogueList("voter card", catalogue.voters, (c) => c.cardId);
    this.events = new CatalogueList("event card", catalogue.events, (c) => c.cardId);
    this.board = new CatalogueList("board field", catalogue.board, (f) => f.position);
    this.parties = new CatalogueList("party", catalogue.parties, (p) => p.party);
  }

  /** A politician ("P09"). */
  politician(politicianId: string): WahlspielPolitician {
    return this.politicians.get(politicianId);
  }

  /** A voter card ("V001") with its structured condition. */
  voter(cardId: string): WahlspielCatalogueVoter {
    return this.voters.get(cardId);
  }

  /** An event card ("E01") with its target, condition and effects. */
  event(cardId: string): WahlspielCatalogueEvent {
    return this.events.get(cardId);
  }
}

/** The Spin Doctors' lists, keyed as views and moves name them (indices, orders or card ids). */
export class SpinDoctorsIndex {
  readonly kind = "spin_doctors" as const;
  readonly staffers: CatalogueList<number, SpinDoctorsCatalogueStaffer>;
  readonly actions: CatalogueList<string, SpinDoctorsCatalogueAction>;
  readonly fields: CatalogueList<number, SpinDoctorsCatalogueField>;
  readonly localities: CatalogueList<number, SpinDoctorsCatalogueLocality>;
  readonly voterGroups: CatalogueList<number, SpinDoctorsCatalogueVoterGroup>;
  readonly turnoutCards: CatalogueList<string, SpinDoctorsCatalogueTurnoutCard>;
  readonly topicCards: CatalogueList<string, SpinDoctorsCatalogueTopicCard>;
  readonly newsCards: CatalogueList<string, SpinDoctorsCatalogueNewsCard>;
  readonly programmeCards: CatalogueList<string, SpinDoctorsCatalogueProgrammeCard>;
  readonly readyMadeStaffs: CatalogueList<number, SpinDoctorsReadyMadeStaff>;

  constructor(readonly catalogue: SpinDoctorsCatalogue) {
    this.staffers = new CatalogueList("Staffer", catalogue.staffers, (s) => s.staffer);
    this.actions = new CatalogueList("Action", catalogue.actions, (a) => a.action);
    this.fields = new CatalogueList("field", catalogue.fields, (f) => f.field);
    this.localities = new CatalogueList("Locality", catalogue.localities, (l) => l.locality);
    this.voterGroups = new CatalogueList("Voter Group", catalogue.voterGroups, (g) => g.voterGroup);
    this.turnoutCards = new CatalogueList("Turnout card", catalogue.turnoutCards, (c) => c.cardId);
    this.topicCards = new CatalogueList("Topic card", catalogue.topicCards, (c) => c.cardId);
    this.newsCards = new CatalogueList("News card", catalogue.newsCards, (c) => c.cardId);
    this.programmeCards = new CatalogueList("Programme card", catalogue.programmeCards, (c) => c.cardId);
    this.readyMadeStaffs = new CatalogueList("ready-made Staff", catalogue.readyMadeStaffs, (s) => s.staff);
  }

  /** A Staffer by its order (0 the Candidate ... 12 the Youth Wing). */
  staffer(order: number): SpinDoctorsCatalogueStaffer {
    return this.staffers.get(order);
  }

  /** An Action by id ("rally_of_support"). */
  action(actionId: string): SpinDoctorsCatalogueAction {
    return this.actions.get(actionId);
  }

  /** A Locality by index (0..9). */
  locality(index: number): SpinDoctorsCatalogueLocality {
    return this.localities.get(index);
  }
}

/** The typed index of any kind's catalogue; switch on `kind` to reach the game's look-ups. */
export type CatalogueIndex = StimmviehIndex | WahlspielIndex | SpinDoctorsIndex;

/**
 * GetGameKind for one kind, as the index of that kind, typed by the kind asked for:
 * `(await loadCatalogueIndex(api, "wahlspiel")).voter("V001")`. An answer of another kind throws.
 */
export function loadCatalogueIndex(api: HustingsRest, kind: "stimmvieh"): Promise<StimmviehIndex>;
export function loadCatalogueIndex(api: HustingsRest, kind: "wahlspiel"): Promise<WahlspielIndex>;
export function loadCatalogueIndex(api: HustingsRest, kind: "spin_doctors"): Promise<SpinDoctorsIndex>;
export function loadCatalogueIndex(api: HustingsRest, kind: string): Promise<CatalogueIndex>;
export async function loadCatalogueIndex(api: HustingsRest, kind: string): Promise<CatalogueIndex> {
  const index = catalogueIndex(await loadCatalogue(api, kind));
  if (index.kind !== kind) throw new Error(`asked for the ${JSON.stringify(kind)} catalogue, answered ${JSON.stringify(index.kind)}'s`);
  return index;
}

/** Wrap a GetGameKind answer in the index of its kind. */
export function catalogueIndex(answer: MessageShape<typeof GameService.method.getGameKind.output>): CatalogueIndex {
  const catalogue = answer.catalogue;
  switch (catalogue.case) {
    case "stimmvieh":
      return new StimmviehIndex(catalogue.value);
    case "wahlspiel":
      return new WahlspielIndex(catalogue.value);
    case "spinDoctors":
      return new SpinDoctorsIndex(catalogue.value);
    default:
      throw new Error(`no catalogue index for kind ${JSON.stringify(answer.kind?.kind ?? "")}`);
  }
}
