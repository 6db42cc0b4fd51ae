// The hustings tables: one shell (lobby, seats, clocks, the move composer, log, result) and one
// renderer per game (games/*.js) that draws the board from the caller's view and the kind's
// catalogue. Moves are composed only out of the view's legal moves (compose.js): the page holds no
// rule of any game. The seat token of each game is kept in localStorage, never in a URL; live
// updates come from the WatchGame event stream (api.js).

import { api, ApiError, Unreachable, catalogue, forgetSeat, mySeat, playerName, rememberSeat, serverNow, setPlayerName, watch } from "./api.js";
import { composer, newComposerState } from "./compose.js";
import { capital, count, enumWords, h, oneAtATime, replaceKeepingFocus, seatLabels, section, words } from "./dom.js";
import stimmvieh from "./games/stimmvieh.js";
import wahlspiel from "./games/wahlspiel.js";
import spinDoctors from "./games/spin_doctors.js";

const RENDERERS = { stimmvieh, wahlspiel, spin_doctors: spinDoctors };
const MAX_LOG = 200;
const LATEST = 3;
const RECEIVED = 30;
// How often an open table asks for its view again while nothing happens: who is here changes
// without a step (a player who closed the page is "away" 30 s after its last call), and the
// stream brings only steps. A test may set window.HUSTINGS_PRESENCE_MS before the page loads.
const PRESENCE_MS = window.HUSTINGS_PRESENCE_MS ?? 20_000;
const FIRST_LOAD_AGAIN_MS = 2_000; // a table whose first view could not be had is asked for again
const LOBBY_PAGE = 50;
const CLOCKS = {
  none: {},
  decision: { decisionSeconds: 60, absentAfterTimeouts: 3, allowTakeover: true },
  bank: { bankSeconds: 600, incrementSeconds: 10, absentAfterTimeouts: 3, allowTakeover: true },
};

// A kind without a renderer of its own is still playable: field names in words.
const GENERIC = {
  board: (view, kindView) => [section("board", "Board", h("pre", { class: "generic" }, JSON.stringify(kindView, null, 1)))],
  decisionTitle: (decision) => words(decision),
  fieldPrompt: (field) => words(field),
  valueLabel: (field, value) => (Array.isArray(value) ? value.join(", ") : String(value)),
  moveText: (decision, params) => [words(decision), ...Object.entries(params).map(([k, v]) => `${words(k)} ${v}`)].join(", "),
  tell: () => null,
};

const errorBox = document.getElementById("error");

/** Names joined with ``between``, each isolated (bdi) so that right-to-left names keep their order. */
const isolated = (names, between = ", ") => names.flatMap((name, i) => [i ? between : null, h("bdi", {}, name)]);

function showError(error) {
  if (error instanceof Unreachable) {
    // fetch's own failure ("Failed to fetch", "NetworkError …"): nothing reached the server, or its
    // answer never came back (a restart); the stream catches the table up once it is back.
    showNotice("Could not reach the server (is it restarting?): what you asked for may not have been done. Try again in a moment; a table shows what happened once it is back.", true);
    return;
  }
  const reason = error instanceof ApiError && error.reason ? `${error.reason} (HTTP ${error.status}): ` : "";
  showNotice(`${reason}${error.message ?? error}`);
}

/** A word to the player in the error box, not an error of the server's. */
function showNotice(text, unreachable = false) {
  errorBox.textContent = text;
  errorBox.dataset.unreachable = unreachable ? "true" : "false";
  errorBox.hidden = false;
}

function clearError() {
  errorBox.hidden = true;
  errorBox.textContent = "";
  errorBox.dataset.unreachable = "false";
}

async function guarded(action) {
  clearError();
  try {
    await action();
  } catch (error) {
    showError(error);
  }
}

const camel = (kind) => kind.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

// --- lobby ---------------------------------------------------------------------------------
// How many times the page has routed: a page drawn after its calls come back draws nothing once a
// later route has replaced it (a lobby that loads slowly must not cover the table opened meanwhile).
let routes = 0;

async function renderLobby(app) {
  const mine = routes;
  document.getElementById("where").textContent = "lobby";
  document.title = "hustings · lobby";
  // The newest tables waiting for players first, then the newest of all: one address's games in
  // play, made and joined at its create rate, filled the first page and pushed every table
  // waiting for players off it.
  const [{ kinds = [] }, { games: waiting = [] }, { games: newest = [], nextPageToken = "" }] = await Promise.all([
    api("GET", "/v1/kinds"),
    api("GET", `/v1/games?pageSize=${LOBBY_PAGE}&status=GAME_STATUS_OPEN`),
    api("GET", `/v1/games?pageSize=${LOBBY_PAGE}`),
  ]);
  const games = [...waiting, ...newest.filter((game) => !waiting.some((w) => w.gameId === game.gameId))];
  if (mine !== routes) return;
  const titles = Object.fromEntries(kinds.map((k) => [k.kind, k.title || k.kind]));
  const name = h("input", { id: "player-name", placeholder: "your name", maxlength: 40, value: playerName(), autocomplete: "nickname" });
  // What is typed here is the name the table pages offer (their join forms); a seat's name is the
  // one the server took (Play again sits the player under it).
  name.addEventListener("change", () => setPlayerName(name.value.trim()));
  const kind = h("select", { id: "new-kind" }, kinds.map((k) => h("option", { value: k.kind }, k.title || k.kind)));
  const players = h("input", { id: "new-players", type: "number", inputmode: "numeric", value: kinds[0]?.minPlayers ?? 3, min: 1, max: 12 });
  const bots = h("input", { id: "new-bots", type: "number", inputmode: "numeric", value: 0, min: 0, max: 11 });
  const clock = h("select", { id: "new-clock" },
    h("option", { value: "none" }, "no clock"),
    h("option", { value: "decision" }, "60 s a decision"),
    h("option", { value: "bank" }, "10 min bank + 10 s"));
  const syncPlayers = () => {
    const chosen = kinds.find((k) => k.kind === kind.value);
    if (!chosen) return;
    Object.assign(players, { min: chosen.minPlayers, max: chosen.maxPlayers });
    const n = Math.min(chosen.maxPlayers, Math.max(chosen.minPlayers, Number(players.value) || chosen.minPlayers));
    players.value = n;
    bots.max = n - 1;
  };
  const unlisted = h("input", { id: "new-unlisted", type: "checkbox" });
  const variants = h("div", { id: "new-options", class: "form" });
  const syncOptions = () => {
    const chosen = kinds.find((k) => k.kind === kind.value);
    const described = Object.fromEntries((chosen?.variants ?? []).map((v) => [v.name, v.description]));
    variants.replaceChildren(...(RENDERERS[kind.value]?.options ?? []).map((o) => {
      const input = h("input", { type: o.type, name: o.key, class: "option", min: o.min, max: o.max, value: o.value });
      const snake = o.key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
      return h("label", { title: described[snake] ?? described[o.key] ?? "" }, o.type === "checkbox" ? [input, o.label] : [o.label, " ", input]);
    }));
  };
  kind.addEventListener("change", syncOptions);
  syncOptions();
  kind.addEventListener("change", syncPlayers);
  players.addEventListener("change", syncPlayers);
  syncPlayers();

  const needName = () => {
    const displayName = name.value.trim();
    if (!displayName) throw new Error("Enter your name first.");
    return displayName;
  };
  const create = async (botSeats) => {
    const n = Number(players.value);
    const chosen = {};
    for (const input of variants.querySelectorAll("input.option")) {
      if (input.type === "checkbox") {
        if (input.checked) chosen[input.name] = true;
      } else if (input.value !== "") chosen[input.name] = Number(input.value);
    }
    return api("POST", "/v1/games", {
      kind: kind.value,
      options: { players: n, ...(Object.keys(chosen).length ? { [camel(kind.value)]: chosen } : {}) },
      table: { ...CLOCKS[clock.value], botSeats, ...(unlisted.checked ? { unlisted: true } : {}) },
    });
  };
  let refusedAt = null; // { settings, gameId } of a table made for a refused join
  // One lobby action at a time: a double click makes one table or takes one seat.
  const once = oneAtATime();
  const lastSeats = (n, count) => Array.from({ length: Math.max(0, Math.min(count, n - 1)) }, (_, i) => n - 1 - i).reverse();
  const sitAt = (gameId, displayName) => api("POST", `/v1/games/${encodeURIComponent(gameId)}:join`, { displayName, requestId: crypto.randomUUID() });
  const createButton = h("button", {
    id: "create-game", type: "button",
    onclick: () => once(() => guarded(async () => {
      const displayName = name.value.trim();
      const created = await create(lastSeats(Number(players.value), Number(bots.value)));
      try {
        // With a name, its creator sits at once: a listed table is open to anyone from its first
        // moment, and a stranger watching the lobby took the seat its creator went to take.
        if (displayName) {
          rememberSeat(created.gameId, await sitAt(created.gameId, displayName));
          setPlayerName(displayName);
        }
      } finally {
        location.hash = `#/game/${created.gameId}`;  // the table, whose page offers the seat again
      }
    })),
  }, "Create table");
  const playBots = h("button", {
    id: "play-bots", type: "button", class: "primary",
    onclick: () => once(() => guarded(async () => {
      const displayName = needName();
      const n = Number(players.value);
      // A table made for a join the server refused (a name it does not take) is joined on the
      // next try with the same settings, rather than another made beside it, seat 0 free.
      const settings = JSON.stringify([kind.value, n, clock.value, unlisted.checked, [...variants.querySelectorAll("input.option")].map((i) => i.value + i.checked)]);
      const sit = (gameId) => sitAt(gameId, displayName);
      let gameId = refusedAt?.settings === settings ? refusedAt.gameId : "";
      let joined;
      if (gameId) {
        joined = await sit(gameId).catch((error) => {
          if (error instanceof ApiError && error.reason === "BAD_DISPLAY_NAME") throw error;
          return null;  // taken meanwhile, or gone: a new table
        });
      }
      if (!joined) {
        gameId = (await create(lastSeats(n, n - 1))).gameId;
        refusedAt = { settings, gameId };
        joined = await sit(gameId);
      }
      refusedAt = null;
      setPlayerName(displayName);
      rememberSeat(gameId, joined);
      location.hash = `#/game/${gameId}`;
    })),
  }, "Play against bots");

  const join = (gameId) => once(() => guarded(async () => {
    const displayName = needName();
    const joined = await api("POST", `/v1/games/${encodeURIComponent(gameId)}:join`, { displayName, requestId: crypto.randomUUID() });
    setPlayerName(displayName);
    rememberSeat(gameId, joined);
    location.hash = `#/game/${gameId}`;
  }));

  const row = (game) => {
    const seated = mySeat(game.gameId);
    const seats = game.seats ?? [];
    const labels = seatLabels(seats.filter((s) => s.taken));
    return h("tr", { class: "game-row", dataset: { gameId: game.gameId } },
      h("td", { class: "game-main" },
        h("a", { href: `#/game/${game.gameId}` }, titles[game.kind] ?? game.kind),
        " ", h("span", { class: `status ${enumWords(game.status, "GAME_STATUS_")}` }, enumWords(game.status, "GAME_STATUS_")),
        h("div", { class: "muted small" }, isolated(seats.map((s) => (s.taken ? `${labels[s.seat ?? 0]}${s.bot && !/bot/i.test(s.displayName) ? " (bot)" : ""}` : "free seat")), " · "))),
      h("td", { class: "game-actions" },
        game.status === "GAME_STATUS_OPEN" && !seated ? h("button", { class: "join", type: "button", onclick: () => join(game.gameId) }, "Join") : null,
        h("button", { class: "open", type: "button", onclick: () => { location.hash = `#/game/${game.gameId}`; } }, seated ? "Play" : "Watch")));
  };
  // The lobby a page at a time, newest first (after the tables waiting for players): "More
  // tables" follows the page token of the newest of all while there is one (a page may come back
  // short while more follow). A table already shown is not shown twice (tables made meanwhile
  // move the later pages along).
  const shown = new Set(games.map((game) => game.gameId));
  const body = h("tbody", {}, games.map(row));
  let next = nextPageToken;
  // What the last "More tables" came to, when the list alone does not tell.
  const said = h("p", { id: "lobby-status", class: "muted small", role: "status", hidden: true });
  const say = (text) => {
    said.textContent = text;
    said.hidden = !text;
  };
  const more = h("button", {
    id: "more-games", type: "button", hidden: !next,
    onclick: () => once(() => guarded(async () => {
      say("");
      let page;
      let restarted = false;
      try {
        page = await api("GET", `/v1/games?pageSize=${LOBBY_PAGE}&pageToken=${encodeURIComponent(next)}`);
      } catch (error) {
        if (!(error instanceof ApiError && error.reason === "BAD_PAGE_TOKEN")) throw error;
        // A replica of another release does not take the token (while a deployment is upgraded):
        // kept, it would be refused on every later click. The list starts over.
        next = "";
        more.hidden = true;
        page = await api("GET", `/v1/games?pageSize=${LOBBY_PAGE}`);
        shown.clear();
        body.replaceChildren();
        restarted = true;
      }
      const fresh = (page.games ?? []).filter((game) => !shown.has(game.gameId));
      for (const game of fresh) shown.add(game.gameId);
      body.append(...fresh.map(row));
      next = page.nextPageToken ?? "";
      more.hidden = !next;
      if (restarted) say("The server could not go on from where the list was: it starts again from the newest tables.");
      else if (!fresh.length) say(next ? "No more tables on this page; more may follow." : "No more tables.");
    })),
  }, "More tables");
  app.replaceChildren(
    section("you-section", "You", h("label", { class: "row" }, "Name ", name)),
    section("new-game", "New table",
      h("div", { class: "form" },
        h("label", {}, "Game ", kind), h("label", {}, "Players ", players), h("label", {}, "Bots ", bots), h("label", {}, "Clock ", clock),
        h("label", { title: "Not in the lobby: your players join through the table's address, which you send them" }, unlisted, "Unlisted")),
      variants,
      h("div", { class: "row" }, playBots, createButton),
      h("p", { class: "muted small" }, "“Play against bots” seats bots in every other seat and you in the first; “Create table” seats you too when you gave your name, and leaves the free seats to people (bots take the last seats). An unlisted table is not shown under Tables: send its address to your players.")),
    section("lobby", null,
      h("h2", {}, "Tables ", h("button", { id: "refresh", type: "button", onclick: () => guarded(() => renderLobby(app)) }, "Refresh")),
      games.length || next ? h("table", { id: "games" }, body) : h("p", { class: "muted" }, "No tables yet."),
      more, said),
  );
}

// --- one game ------------------------------------------------------------------------------
let stopGame = () => {};

function renderGame(app, gameId) {
  document.getElementById("where").textContent = "table";
  const seated = mySeat(gameId);
  const token = seated?.token;
  const page = { view: null, cat: null, entries: [], busy: false, leaving: false, composer: { signature: "", state: newComposerState() }, received: [], unanswered: null };
  // What the table holds, for a look from the browser's console (and the tests): its view, the
  // composer's state, and where its last few views came from.
  app.table = page;
  const received = (from, version, taken) => {
    page.received.push({ from, version: String(version), taken, at: Math.round(performance.now()) });
    if (page.received.length > RECEIVED) page.received.shift();
  };
  // Nothing of the page before stays on screen under this table's address while it loads (or if
  // it cannot be loaded: the error shows on an empty table).
  app.replaceChildren(h("p", { id: "loading", class: "muted" }, "Loading the table…"));
  let live = "connecting…";
  // Whether the stream is away (not live, once it has been asked for): moves wait for it.
  const offline = () => live !== "live" && live !== "connecting…";
  app.dataset.offline = "false"; // a table before this one may have been left while away
  let controller = null;
  let ticker = null;
  let presence = null; // asks for the view now and then: who is here changes without a step
  let heard = { mine: false, version: "" }; // what the live region last said: the turn, the newest line
  let stopped = false; // another page replaced this table: it draws nothing more and follows nothing
  const logList = h("ol", { id: "log", reversed: true });
  // The latest few lines of the log, under the summary: what just happened, without scrolling.
  const latest = h("ol", { id: "latest", class: "small" });

  const renderer = () => RENDERERS[page.view?.kind] ?? GENERIC;

  function context() {
    const view = page.view;
    const names = seatLabels(view.seats ?? []);
    return {
      view,
      kindView: view[camel(view.kind)] ?? {},
      cat: page.cat?.[camel(view.kind)] ?? {},
      me: view.seat,
      seatName: (seat) => (seat === undefined || seat === null || seat < 0 ? "" : names[seat] ?? `seat ${seat}`),
      cache: {},
    };
  }

  const submit = (move) => {
    // Not while the stream is away (the buttons are inert then; a keyboard could still send).
    if (page.busy || offline()) return;
    page.busy = true;
    app.dataset.busy = "true";
    guarded(async () => {
      let stale = false;
      // A move sent again after its answer was lost goes under the same request id: the server
      // answers what it did the first time instead of making the move twice (a coalition draft's
      // item, whose legal moves stay as they were, kept its Confirm ready).
      const sent = JSON.stringify(move);
      const requestId = page.unanswered?.sent === sent ? page.unanswered.requestId : crypto.randomUUID();
      try {
        const body = { move, requestId, expectedVersion: page.view.version };
        await api("POST", `/v1/games/${encodeURIComponent(gameId)}/moves`, body, token);
        page.unanswered = null;
        // Made: the composer starts afresh. A move that leaves the legal moves as they were (a
        // coalition draft's item) kept its Confirm ready, and a second click made it again.
        page.composer = { signature: "", state: newComposerState() };
      } catch (error) {
        page.unanswered = error instanceof Unreachable ? { sent, requestId } : null;
        // Another seat (or another tab of this one) moved first: the move was not made. The
        // new position is shown (where the legal moves are the same, the choice stays composed).
        if (!(error instanceof ApiError && error.reason === "STALE_VERSION")) throw error;
        stale = true;
      } finally {
        page.busy = false;
        app.dataset.busy = "false";
      }
      await refresh();
      if (stale) showNotice("Your move was not made: the table moved on first (another player, or this seat in another tab). Here is the new position; confirm again if your move still stands.");
    });
  };

  // A table's actions one at a time: a second click while the first one's call is under way
  // waits for it instead of taking a second seat, seating a second bot or showing the refusal of
  // a call that the first one made pointless.
  const once = oneAtATime();

  const tableCall = (verb, body = {}) => once(() => guarded(async () => {
    await api("POST", `/v1/games/${encodeURIComponent(gameId)}:${verb}`, body, token);
    await refresh();
  }));

  const join = (input, seat) => once(() => guarded(async () => {
    const displayName = input.value.trim();
    if (!displayName) throw new Error("Enter your name first.");
    const body = { displayName, requestId: crypto.randomUUID() };
    if (seat !== undefined) body.seat = seat;
    const joined = await api("POST", `/v1/games/${encodeURIComponent(gameId)}:join`, body);
    setPlayerName(displayName);
    rememberSeat(gameId, joined);
    stopGame();
    renderGame(app, gameId);
  }));

  const takeOver = (input, seat) => once(() => guarded(async () => {
    const displayName = input.value.trim();
    if (!displayName) throw new Error("Enter your name first.");
    const joined = await api("POST", `/v1/games/${encodeURIComponent(gameId)}:takeOver`, { seat, displayName, requestId: crypto.randomUUID() });
    setPlayerName(displayName);
    rememberSeat(gameId, joined);
    stopGame();
    renderGame(app, gameId);
  }));

  // The next game at this table. Every player's call names the same game (the server derives its
  // id), so whoever asks first makes it and the others are sent to the same table; each takes the
  // seat they had if it is still free, else any free one, else watches.
  const playAgain = (seat, name) => once(() => guarded(async () => {
    const next = await api("POST", `/v1/games/${encodeURIComponent(gameId)}:playAgain`, {}, token);
    const nextId = next.gameId;
    // A seat this browser holds of that id may be of an earlier game under it (a next game that
    // expired and was made again): a token the game refuses is forgotten, and the player joins.
    const held = mySeat(nextId);
    if (held) {
      await api("GET", `/v1/games/${encodeURIComponent(nextId)}/view`, undefined, held.token).catch((error) => {
        if (!(error instanceof ApiError && error.reason === "INVALID_SEAT_TOKEN")) throw error;
        forgetSeat(nextId);
      });
    }
    if (!mySeat(nextId) && next.view?.status === "GAME_STATUS_OPEN") {
      const displayName = name || playerName();  // the name the seat played under, which the server took
      const sit = (body) => api("POST", `/v1/games/${encodeURIComponent(nextId)}:join`, { displayName, requestId: crypto.randomUUID(), ...body });
      const free = (next.view.seats ?? []).some((s) => s.seat === seat && !s.taken);
      try {
        rememberSeat(nextId, await sit(free ? { seat } : {}).catch((error) => {
          if (free && error instanceof ApiError && error.reason === "SEAT_TAKEN") return sit({});
          throw error;
        }));
      } catch (error) {
        if (!(error instanceof ApiError && error.reason === "GAME_FULL")) throw error;
      }
    }
    location.hash = `#/game/${nextId}`;
  }));

  /** Seconds as a clock reads them: "59 s", "11:22". */
  function duration(seconds) {
    return seconds < 100 ? `${seconds} s` : `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  }

  function clockText(seat) {
    // A table without a clock shows none: its bots' decisions are due at once, which read "0 s".
    const table = page.view?.table ?? {};
    if (!table.decisionSeconds && !table.bankSeconds) return "";
    if (seat.bot) return ""; // a bot's decisions are due at once: no clock runs for it
    const now = serverNow(); // the deadlines are the server's: this browser's clock may be off
    const deadline = Number(seat.deadlineUnixMs ?? 0);
    const bank = Number(seat.bankMs ?? 0);
    const parts = [];
    // In words, not a clock sign (a phone without its font drew an empty box); minutes past 99 s.
    // An absent seat's bot decides at once too; its bank is the player's, kept for a return.
    if (deadline > 0 && !seat.absent) parts.push(`${duration(Math.max(0, Math.ceil((deadline - now) / 1000)))} left`);
    else if (bank > 0) parts.push(`bank ${duration(Math.ceil(bank / 1000))}`);
    return parts.join(" ");
  }

  // What a seat's dot means, for its label and its tooltip (the colour alone told nothing).
  const PRESENCE_WORDS = {
    here: "here: connected", away: "away: not connected, still in the game", absent: "absent: a bot plays this seat",
    bot: "a server bot", free: "free seat",
  };

  function seatStrip(ctx) {
    const view = page.view;
    const toAct = new Set(view.toAct ?? []);
    return h("ul", { id: "seats" }, (view.seats ?? []).map((s) => {
      const presence = s.bot ? "bot" : s.absent ? "absent" : s.present ? "here" : s.taken ? "away" : "free";
      return h("li", {
        class: `seat-chip${toAct.has(s.seat) ? " to-act" : ""}${s.seat === view.seat ? " me" : ""}`,
        dataset: { seat: s.seat, presence },
        title: s.timeouts ? `${s.timeouts} timeouts` : "",
      },
      h("span", { class: `dot ${presence}`, role: "img", "aria-label": PRESENCE_WORDS[presence], title: PRESENCE_WORDS[presence] }),
      h("span", { class: "seat-name" }, s.taken ? ctx.seatName(s.seat) : `seat ${s.seat} free`),
      renderer().seatNote?.(s.seat, ctx) ?? null,
      h("span", { class: "muted small" }, s.seat === view.seat
        ? (presence === "absent" ? "away: a bot plays for you until you are back" : "")
        : presence === "free" ? "" : presence),
      s.timeouts ? h("span", { class: "muted small" }, ` ${s.timeouts}× late`) : null,
      h("span", { class: "clock", dataset: { seat: s.seat } }, clockText(s)));
    }));
  }

  /** Focus `selector` without scrolling to it (the keyboard's place after a table action). */
  function focusOn(selector) {
    document.querySelector(selector)?.focus({ preventScroll: true });
  }

  function tableActions() {
    const view = page.view;
    const parts = [];
    const seats = view.seats ?? [];
    const free = seats.filter((s) => !s.taken);
    const mine = seats.find((s) => s.seat === view.seat);
    // The question "leave?" is for a seat in play that its player holds, and is asked anew.
    if (view.status !== "GAME_STATUS_ACTIVE" || !mine || mine.absent) page.leaving = false;
    if (view.status === "GAME_STATUS_OPEN" && view.seat === undefined) {
      const input = h("input", { id: "join-name", placeholder: "your name", "aria-label": "Your name", maxlength: 40, value: playerName() });
      parts.push(h("div", { class: "row" }, input, h("button", { id: "join-game", type: "button", class: "primary", onclick: () => join(input) }, "Join this table")));
    }
    // A player at the table seats bots (the server refuses a spectator: NOT_AT_THE_TABLE).
    if (view.status === "GAME_STATUS_OPEN" && free.length && view.seat !== undefined) {
      parts.push(h("button", { id: "add-bot", type: "button", onclick: () => tableCall("addBot", { seat: free[free.length - 1].seat }) }, `Seat a bot (${free.length} free)`));
    }
    if (view.status === "GAME_STATUS_ACTIVE" && mine) {
      if (mine.absent) parts.push(h("button", { id: "return", type: "button", class: "primary", onclick: () => tableCall("return") }, "I am back"));
      else if (page.leaving) {
        // Asked once more: leaving hands the seat to a bot at once, which one tap did unawares.
        parts.push(h("p", { id: "leave-told", class: "small" }, "A bot plays your seat from now on, until you come back with “I am back”."),
          h("button", { id: "leave-confirm", type: "button", class: "primary", onclick: () => { page.leaving = false; tableCall("leave"); } }, "Leave"),
          h("button", { id: "leave-cancel", type: "button", onclick: () => { page.leaving = false; draw(); focusOn("#leave"); } }, "Stay"));
      } else parts.push(h("button", { id: "leave", type: "button", onclick: () => { page.leaving = true; draw(); focusOn("#leave-cancel"); } }, "Leave the table"));
    }
    if (view.status === "GAME_STATUS_FINISHED" && mine) {
      parts.push(h("button", { id: "play-again", type: "button", class: "primary", onclick: () => playAgain(mine.seat, mine.displayName) }, "Play again"));
    }
    if (view.status === "GAME_STATUS_ACTIVE" && view.seat === undefined && view.table?.allowTakeover) {
      for (const s of seats.filter((x) => x.absent && !x.bot)) {
        const whose = s.displayName ? `${s.displayName}’s seat (seat ${s.seat})` : `seat ${s.seat}`;
        const input = h("input", { placeholder: "your name", "aria-label": `Your name, to take over ${whose}`, maxlength: 40, value: playerName(), class: "take-over-name", dataset: { seat: s.seat } });
        parts.push(h("div", { class: "row" }, input, h("button", { class: "take-over", type: "button", dataset: { seat: s.seat }, onclick: () => takeOver(input, s.seat) }, `Take over ${whose}`)));
      }
    }
    return parts.length ? h("div", { id: "table-actions" }, parts) : null;
  }

  function outcome(ctx) {
    const placings = page.view.outcome?.placings ?? [];
    if (!placings.length) return null;
    const ranked = (p) => (p.rankedBy ?? []).map((r) => ({ name: words(r.name), value: Number(r.value ?? 0) }));
    // What the rules rank by, and where a place's score is no more than the next one's, the value
    // that put it ahead: a bare score, and a tie broken unsaid, told a player who won but not why.
    const order = ranked(placings[0]).map((r) => r.name);
    const ahead = (p, next) => {
      if (!next || next.rank === p.rank || Number(next.score) < Number(p.score)) return null;
      const mine = ranked(p), theirs = ranked(next);
      const at = mine.findIndex((r, i) => r.value !== theirs[i]?.value);
      if (at < 0) return null;
      return h("div", { class: "muted small tie-broken" }, `ahead of ${next.name} by ${mine[at].name}: ${mine[at].value} to ${theirs[at]?.value ?? 0}`);
    };
    return section("outcome", "Result",
      order.length ? h("p", { id: "ranked-by", class: "muted small" }, `Ranked by ${order.join(", then ")}`) : null,
      h("ol", { class: "placings" }, placings.map((p, i) => h("li", { dataset: { rank: p.rank } },
        h("b", {}, `${p.rank}. ${p.name}`),
        p.seat !== undefined ? ` — ${ctx.seatName(p.seat)}${p.seat === page.view.seat ? " (you)" : ""}` : "",
        ` · ${p.score}`,
        p.detail ? h("div", { class: "muted small" }, p.detail) : null,
        ahead(p, placings[i + 1])))),
      renderer().outcomeExtra?.(ctx) ?? null);
  }

  function draw() {
    const view = page.view;
    if (!view || stopped) return;
    const ctx = context();
    const game = renderer();
    const title = page.cat?.kind?.title ?? view.kind;
    const mine = (view.toAct ?? []).includes(view.seat) && view.status === "GAME_STATUS_ACTIVE";
    document.title = `${mine ? "● your move · " : ""}${title} · hustings`;
    const toAct = (view.toAct ?? []).map((s) => (s === view.seat ? "you" : ctx.seatName(s)));
    const status = enumWords(view.status, "GAME_STATUS_");
    const header = section("summary", null,
      h("h2", { id: "table-title", tabindex: "-1" }, `${title} · ${status} · step `, h("span", { id: "version" }, view.version), " ", h("span", { id: "live", class: "live muted" }, live)),
      h("p", { id: "you" }, view.seat !== undefined ? `You are ${ctx.seatName(view.seat)} (seat ${view.seat}).` : "You are watching."),
      view.seedChosenByCreator ? h("p", { id: "seed-chosen", class: "muted small" }, "This table's deal was chosen by its creator, who may know every hand.") : null,
      view.status === "GAME_STATUS_OPEN" ? h("p", { class: "headline" }, `Waiting for ${count((view.seats ?? []).filter((s) => !s.taken).length, "more player", "more players")}`) : game.headline?.(ctx) ?? null,
      toAct.length && view.status === "GAME_STATUS_ACTIVE" ? h("p", { id: "to-act", class: (view.toAct ?? []).includes(view.seat) ? "your-turn" : "" },
        (view.toAct ?? []).includes(view.seat)
          ? ["Your decision", toAct.length > 1 ? [" (also ", isolated(toAct.filter((n) => n !== "you")), ")"] : null]
          : ["Waiting for ", isolated(toAct)]) : null,
      seatStrip(ctx),
      tableActions(),
      latest);
    const parts = [header];
    const moves = view.legalMoves ?? [];
    if (moves.length) {
      const signature = JSON.stringify(moves);
      if (signature !== page.composer.signature) page.composer = { signature, state: newComposerState() };
      const built = composer(moves, game, ctx, page.composer.state, submit);
      const asDialog = game.dialog?.(moves, ctx);
      // Moves outside the seat's turn are the side moves a game allows at any time.
      const heading = asDialog ? capital(asDialog) : (view.toAct ?? []).includes(view.seat) ? "Your move" : "Any time: side moves";
      parts.push(h("section", { id: "moves", class: asDialog ? "dialog" : "", inert: offline() ? "" : null }, h("h2", { id: "moves-title", tabindex: "-1" }, heading), built));
    } else {
      page.composer = { signature: "", state: newComposerState() };
    }
    const result = outcome(ctx);
    if (result) parts.push(result);
    parts.push(...game.board(view, ctx.kindView, ctx));
    parts.push(section("log-section", "Log", logList));
    // The keyboard stays where it was (a choice, a field), not at the page's top; one that was on a
    // move gone with the update goes to the moves' heading (or the table's, when none is left),
    // never onto another move.
    replaceKeepingFocus(app, parts, (lost) => (lost?.closest("#moves") ? document.querySelector("#moves-title") ?? document.querySelector("#table-title") : null));
    app.dataset.version = view.version;
    app.dataset.status = status;
    app.dataset.kind = view.kind;
    relabelLog(ctx);
    announce(mine);
  }

  // A screen reader hears when the seat's decision comes and what just happened: the page is
  // drawn anew at every step, and nothing of it was a live region but the error box.
  function announce(mine) {
    const newest = logList.firstElementChild;
    const version = newest?.dataset.version ?? "";
    const said = [];
    if (mine && !heard.mine) said.push("Your decision.");
    if (version && version !== heard.version && heard.version) {
      // Every line since the last told (a bot's answer comes with the move before it), oldest
      // first, the latest few at most.
      const fresh = [...logList.children].filter((item) => BigInt(item.dataset.version ?? 0) > BigInt(heard.version)).slice(0, LATEST);
      said.push(...fresh.reverse().map((item) => item.textContent.replace(/^\d+ /, "")));
    }
    heard = { mine, version };
    if (said.length) document.getElementById("announce").textContent = said.join(" ");
  }

  function tellEvent(event, ctx) {
    const { version, seat, ...body } = event;
    const [kind, detail] = Object.entries(body)[0] ?? ["", {}];
    if (kind === "seatTaken") return `${detail.displayName || `seat ${detail.seat}`} took seat ${detail.seat ?? 0}${detail.gameStarted ? "; the game begins" : ""}`;
    if (kind === "seatChanged") {
      // The seat as the table names it (its number beside a name another seat's reads as), or,
      // for a name the seat no longer has (before a take-over), that name with the seat's number.
      const at = detail.seat ?? 0;
      const current = ctx.seatName(at);
      const who = !detail.displayName || current === detail.displayName || current.startsWith(`${detail.displayName} (seat `)
        ? current : `${detail.displayName} (seat ${at})`;
      const change = {
        CHANGE_LEFT: "left the table", CHANGE_RETURNED: "is back", CHANGE_TIMED_OUT: "ran out of time (a default decision was taken)",
        CHANGE_ABSENT: "is marked absent", CHANGE_TAKEN_OVER: "took over the seat", CHANGE_BOT_ADDED: "(a bot) sat down",
      }[detail.change] ?? enumWords(detail.change, "CHANGE_");
      return `${who} ${change}`;
    }
    try {
      const told = renderer().tell(detail, event, ctx);
      if (told) return told;
    } catch (error) {
      console.warn("an event could not be told", error);
    }
    const [what] = Object.keys(detail ?? {});
    return `${ctx.seatName(seat) || "table"}: ${words(what ?? kind)}`;
  }

  // The name each take-over ended, from the seats taken and taken over before it in the log
  // (undefined: the log held no earlier name for that seat).
  function namesBeforeTakeOvers() {
    const held = new Map();
    const before = new Map();
    for (const entry of page.entries) {
      for (const event of entry.events ?? []) {
        const taken = event.seatTaken;
        const changed = event.seatChanged;
        if (taken) held.set(taken.seat ?? 0, taken.displayName ?? "");
        if (changed && (changed.change === "CHANGE_TAKEN_OVER" || changed.change === "CHANGE_BOT_ADDED")) {
          before.set(event, held.get(changed.seat ?? 0));
          held.set(changed.seat ?? 0, changed.displayName ?? "");
        }
      }
    }
    return before;
  }

  // ``ctx`` as of an event before a take-over of some seats: ``holders`` names who held each
  // then (null: a player the log does not name), so that their moves are not told as the
  // present holder's.
  function asOf(ctx, holders) {
    if (!holders.size) return ctx;
    return {
      ...ctx,
      seatName: (seat) => {
        if (!holders.has(seat)) return ctx.seatName(seat);
        const name = holders.get(seat);
        return name ? `${name} (seat ${seat})` : `seat ${seat} (before a take-over)`;
      },
    };
  }

  function relabelLog(ctx) {
    // Names can arrive after the events (a seat joins): the log is told again from its entries.
    // Told from the newest back: past a take-over, the seat's events are its earlier holder's.
    const items = [];
    const before = namesBeforeTakeOvers();
    const holders = new Map();
    let told = ctx;
    for (let i = page.entries.length - 1; i >= 0 && items.length < MAX_LOG; i -= 1) {
      const events = page.entries[i].events ?? [];
      for (let j = events.length - 1; j >= 0 && items.length < MAX_LOG; j -= 1) {
        const text = tellEvent(events[j], told);
        if (before.has(events[j])) {
          const seat = events[j].seatChanged.seat ?? 0;
          const name = before.get(events[j]);
          const holder = (ctx.view.seats ?? []).find((s) => (s.seat ?? 0) === seat)?.displayName;
          if (name !== undefined && name === holder) holders.delete(seat);
          else holders.set(seat, name ?? null);
          told = asOf(ctx, holders);
        }
        if (text) items.push(h("li", { dataset: { version: events[j].version } }, h("span", { class: "muted small" }, `${events[j].version} `), text));
      }
    }
    logList.replaceChildren(...items);
    latest.replaceChildren(...items.slice(0, LATEST).map((item) => item.cloneNode(true)));
  }

  function addEntries(entries) {
    const last = page.entries.length ? BigInt(page.entries[page.entries.length - 1].version) : -1n;
    for (const entry of entries ?? []) if (BigInt(entry.version) > last || !page.entries.length) page.entries.push(entry);
    if (page.entries.length > MAX_LOG * 2) page.entries.splice(0, page.entries.length - MAX_LOG);
  }

  // ``quietly``: the presence timer's ask, which draws the table only when the view changed (a
  // redraw every 20 s would reset what a player typed into a field it then left).
  async function refresh(quietly = false) {
    const { view } = await api("GET", `/v1/games/${encodeURIComponent(gameId)}/view`, undefined, token);
    const taken = !page.view || BigInt(view.version) >= BigInt(page.view.version);
    received("refresh", view.version, taken);
    if (taken && !(quietly && JSON.stringify(view) === JSON.stringify(page.view))) {
      page.view = view;
      draw();
    }
  }

  stopGame = () => {
    stopped = true;
    controller?.abort();
    clearInterval(ticker);
    clearInterval(presence);
  };

  guarded(async () => {
    const first = await api("GET", `/v1/games/${encodeURIComponent(gameId)}/view`, undefined, token).catch((error) => {
      if (error instanceof Unreachable && !stopped) {
        // The server away as the table loads: it is asked again until it answers (a table
        // that never loaded had nothing to catch up with, and stayed "Loading the table…").
        setTimeout(() => {
          if (stopped) return;
          stopGame();
          renderGame(app, gameId);
        }, FIRST_LOAD_AGAIN_MS);
        throw error;
      }
      // A seat this browser kept that the game no longer knows (taken over, or of an earlier
      // game under this id): forget it and open the table as a spectator, who may join.
      if (!token || stopped || !(error instanceof ApiError && error.reason === "INVALID_SEAT_TOKEN")) throw error;
      forgetSeat(gameId);
      return null;
    });
    if (first === null) {
      renderGame(app, gameId);
      return;
    }
    const { view } = first;
    page.cat = await catalogue(view.kind);
    if (stopped) return;
    // The log shows the newest lines, and addEntries keeps at most MAX_LOG * 2 steps: read only
    // the last page of that many (a history is read in pages by version).
    const keep = BigInt(MAX_LOG * 2);
    const after = BigInt(view.version) > keep ? BigInt(view.version) - keep : 0n;
    const { entries } = await api("GET", `/v1/games/${encodeURIComponent(gameId)}/history?afterVersion=${after}&pageSize=${keep}`, undefined, token);
    if (stopped) return; // left while the table loaded: no stream, no clock for it
    addEntries((entries ?? []).filter((e) => BigInt(e.version) <= BigInt(view.version)));
    page.view = view;
    received("first", view.version, true);
    draw();
    ticker = setInterval(() => {
      for (const node of app.querySelectorAll(".clock[data-seat]")) {
        const seat = page.view?.seats?.find((s) => String(s.seat) === node.dataset.seat);
        if (seat) node.textContent = clockText(seat);
      }
    }, 1000);
    presence = setInterval(() => {
      if (!page.busy && !stopped && live === "live") refresh(true).catch(() => {}); // the next one tries again
    }, PRESENCE_MS);
    let pending = false;
    controller = watch(gameId, token, view.version, (update) => {
      addEntries(update.entries);
      const taken = Boolean(update.view) && BigInt(update.version) >= BigInt(page.view.version);
      received("stream", update.version, taken);
      if (taken) page.view = update.view;
      // Updates that arrive together (a bot's answer right after a move) are drawn once.
      if (!pending) {
        pending = true;
        setTimeout(() => { pending = false; draw(); }, 0);
      }
    }, (text) => {
      received(`stream ${text}`, page.view?.version ?? "", false);
      live = text;
      const node = document.getElementById("live");
      if (node) node.textContent = text;
      // No moves while the stream is away (the server restarting): they would fail, or be made
      // on a position this page no longer shows; inert, so that no keyboard reaches them either.
      // Live (again), a call it made fail is no longer news.
      app.dataset.offline = offline() ? "true" : "false";
      document.getElementById("moves")?.toggleAttribute("inert", offline());
      if (text === "live" && errorBox.dataset.unreachable === "true") clearError();
    }, (error) => {
      if (error.reason === "INVALID_SEAT_TOKEN") forgetSeat(gameId);
      showError(error);
    });
  });
}

// --- routing -------------------------------------------------------------------------------
function route() {
  routes += 1;
  stopGame();
  stopGame = () => {};
  clearError();
  const app = document.getElementById("app");
  const match = location.hash.match(/^#\/game\/([A-Za-z0-9_-]{1,64})$/);
  if (match) renderGame(app, match[1]);
  else guarded(() => renderLobby(app));
}

window.addEventListener("hashchange", route);
route();
