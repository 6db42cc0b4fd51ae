// The hustings browser client: lobby, a board per game, legal moves as buttons, live updates.
//
// It speaks only the REST/JSON face (canonical protobuf JSON) and draws a game only from the
// caller's view: what the server does not send, the page cannot show. The seat token of each
// game lives in sessionStorage (per tab), never in a URL. Live updates come from the WatchGame
// event stream, read with fetch so that the token travels in the Authorization header.

const RETRY_MS = 2000;
const MAX_LOG = 200;

// --- small helpers -------------------------------------------------------------------------
function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function words(name) {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/_/g, " ").toLowerCase();
}

function enumName(value, prefix) {
  return String(value ?? "").replace(prefix, "").replace(/_/g, " ").toLowerCase();
}

class ApiError extends Error {
  constructor(status, reason, message) {
    super(message);
    this.status = status;
    this.reason = reason;
  }
}

async function api(method, path, body, token) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  let data = {};
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    throw new ApiError(response.status, "BAD_RESPONSE", text.slice(0, 200));
  }
  if (!response.ok) throw new ApiError(response.status, data.details?.[0]?.reason ?? "", data.message ?? text);
  return data;
}

const errorBox = document.getElementById("error");

function showError(error) {
  const reason = error instanceof ApiError && error.reason ? `${error.reason} (HTTP ${error.status}): ` : "";
  errorBox.textContent = `${reason}${error.message ?? error}`;
  errorBox.hidden = false;
}

function clearError() {
  errorBox.hidden = true;
  errorBox.textContent = "";
}

async function guarded(action) {
  clearError();
  try {
    await action();
  } catch (error) {
    showError(error);
  }
}

// --- seats in sessionStorage ---------------------------------------------------------------
const seatKey = (gameId) => `hustings.seat.${gameId}`;

function mySeat(gameId) {
  try {
    return JSON.parse(sessionStorage.getItem(seatKey(gameId)) ?? "null");
  } catch {
    return null;
  }
}

function rememberSeat(gameId, joined) {
  sessionStorage.setItem(seatKey(gameId), JSON.stringify({ seat: joined.seat ?? 0, token: joined.seatToken }));
}

function playerName() {
  return sessionStorage.getItem("hustings.name") ?? "";
}

// --- lobby ---------------------------------------------------------------------------------
async function renderLobby(app) {
  document.getElementById("where").textContent = "lobby";
  const [{ kinds = [] }, { games = [] }] = await Promise.all([api("GET", "/v1/kinds"), api("GET", "/v1/games?pageSize=50")]);
  const name = h("input", { id: "player-name", placeholder: "your name", maxlength: 40, value: playerName() });
  name.addEventListener("change", () => sessionStorage.setItem("hustings.name", name.value.trim()));
  const kind = h("select", { id: "new-kind" }, kinds.map((k) => h("option", { value: k.kind }, k.title || k.kind)));
  const players = h("input", { id: "new-players", type: "number", value: kinds[0]?.maxPlayers ?? 4, min: 1, max: 12 });
  const syncPlayers = () => {
    const chosen = kinds.find((k) => k.kind === kind.value);
    if (chosen) Object.assign(players, { min: chosen.minPlayers, max: chosen.maxPlayers });
  };
  kind.addEventListener("change", syncPlayers);
  syncPlayers();
  const create = h("button", {
    id: "create-game",
    onclick: () => guarded(async () => {
      const created = await api("POST", "/v1/games", { kind: kind.value, options: { players: Number(players.value) } });
      location.hash = `#/game/${created.gameId}`;
    }),
  }, "Create game");

  const join = (gameId) => guarded(async () => {
    const displayName = name.value.trim();
    if (!displayName) throw new Error("Enter your name first.");
    sessionStorage.setItem("hustings.name", displayName);
    const joined = await api("POST", `/v1/games/${encodeURIComponent(gameId)}:join`, { displayName, requestId: crypto.randomUUID() });
    rememberSeat(gameId, joined);
    location.hash = `#/game/${gameId}`;
  });

  const rows = games.map((game) => {
    const seated = mySeat(game.gameId);
    return h("tr", { dataset: { gameId: game.gameId } },
      h("td", {}, h("a", { href: `#/game/${game.gameId}` }, game.gameId)),
      h("td", {}, game.kind),
      h("td", {}, enumName(game.status, "GAME_STATUS_")),
      h("td", {}, (game.seats ?? []).map((s) => s.taken ? s.displayName : "·").join(", ")),
      h("td", {},
        seated ? h("span", { class: "muted" }, `seat ${seated.seat}`) : null,
        game.status === "GAME_STATUS_OPEN" && !seated ? h("button", { class: "join", onclick: () => join(game.gameId) }, "Join") : null,
        h("button", { onclick: () => { location.hash = `#/game/${game.gameId}`; } }, seated ? "Play" : "Watch")));
  });
  app.replaceChildren(
    h("section", {}, h("h2", {}, "You"), h("label", {}, "Name ", name)),
    h("section", {}, h("h2", {}, "New game"), h("label", {}, "Kind ", kind), " ", h("label", {}, "Players ", players), " ", create),
    h("section", {},
      h("h2", {}, "Games ", h("button", { id: "refresh", onclick: () => guarded(() => renderLobby(app)) }, "Refresh")),
      games.length
        ? h("table", { id: "games" }, h("tr", {}, ["Game", "Kind", "Status", "Players", ""].map((t) => h("th", {}, t))), rows)
        : h("p", { class: "muted" }, "No games yet.")),
  );
}

// --- generic rendering of any view value ---------------------------------------------------
function renderValue(value) {
  if (Array.isArray(value)) {
    if (value.length === 0) return h("span", { class: "muted" }, "—");
    if (value.every((v) => v === null || typeof v !== "object")) return value.map((v) => h("span", { class: "chip" }, v));
    return h("ol", {}, value.map((v) => h("li", {}, renderValue(v))));
  }
  if (value && typeof value === "object") {
    if ("cardId" in value || "label" in value) return renderCard(value);
    const entries = Object.entries(value);
    if (!entries.length) return h("span", { class: "muted" }, "—");
    return h("dl", { class: "generic" }, entries.flatMap(([k, v]) => [h("dt", {}, words(k)), h("dd", {}, renderValue(v))]));
  }
  if (typeof value === "string" && /^[A-Z][A-Z0-9_]+$/.test(value)) return words(value.split("_").slice(-2).join("_"));
  return String(value);
}

function renderCard(card) {
  if (!card || (!card.cardId && !card.label)) return h("span", { class: "muted" }, "—");
  const parts = [card.label || card.cardId];
  if (card.influence) parts.push(`influence ${card.influence}`);
  if (card.amount) parts.push(`${card.amount}`);
  return h("span", { class: "card", title: card.cardId ?? "" }, parts.join(" · "));
}

// --- Stimmvieh -----------------------------------------------------------------------------
function renderStimmvieh(board, view) {
  const seatName = (seat) => view.seats?.find((s) => s.seat === seat)?.displayName ?? "";
  const mine = board.parties?.find((p) => p.seat !== undefined && p.seat === view.seat);
  const stack = (s) => s ? h("span", {}, renderCard(s.topCard), ` ×${s.count ?? 0}`, s.total !== undefined ? ` (total ${s.total})` : "") : "—";
  const sections = [];
  if (mine) {
    sections.push(h("section", { id: "hand" },
      h("h2", {}, `Your hand (${mine.name})`),
      // Chosen top candidates stay face down (chosenTopCandidates) until they are revealed.
      h("p", {}, "Top candidates: ", h("span", { class: "top-candidates" },
        renderValue((mine.topCandidates ?? []).length ? mine.topCandidates : (mine.chosenTopCandidates ?? []))),
        (mine.topCandidates ?? []).length || !(mine.chosenTopCandidates ?? []).length ? "" : h("span", { class: "muted" }, " (face down)")),
      h("p", {}, "Backbenchers: ", h("span", { class: "backbenchers" }, renderValue(mine.backbenchers ?? [])))));
  }
  sections.push(h("section", { id: "board" },
    h("h2", {}, `Campaign ${board.campaign ?? 0} of ${board.campaigns ?? 0} · round ${board.round ?? 0} · ${enumName(board.phase, "STIMMVIEH_PHASE_")}`),
    h("p", {}, "Display: ", (board.display ?? []).map(renderCard)),
    h("p", {}, "Vote stack: ", renderCard(board.voteStackTop), ` ×${board.voteStackCount ?? 0}`, " · Donation stack: ",
      renderCard(board.donationStackTop), ` ×${board.donationStackCount ?? 0}`),
    h("table", { id: "parties" },
      h("tr", {}, ["Party", "Player", "Top candidates", "Backbenchers", "Votes", "Donations", "Points"].map((t) => h("th", {}, t))),
      (board.parties ?? []).map((p) => h("tr", { class: p === mine ? "mine" : "", dataset: { party: p.party ?? 0 } },
        h("td", {}, p.name, p.party === board.currentParty ? " ◀" : ""),
        h("td", {}, p.seat !== undefined ? seatName(p.seat) : h("span", { class: "muted" }, "dummy")),
        h("td", { class: "chosen" }, (p.chosenTopCandidates ?? []).length ? renderValue(p.chosenTopCandidates)
          : (p.topCandidatesChosen ? "chosen" : "choosing…")),
        h("td", {}, String(p.backbencherCount ?? 0)),
        h("td", {}, stack(p.votes)),
        h("td", {}, stack(p.donations)),
        h("td", {}, String(p.campaignPoints ?? 0)))))));
  return sections;
}

// Kind-specific boards; any other kind is drawn generically from its view.
const BOARDS = { stimmvieh: renderStimmvieh };

function moveLabel(move, view) {
  const [kind, body] = Object.entries(move)[0] ?? ["", {}];
  const [decision, params] = Object.entries(body ?? {})[0] ?? [kind, {}];
  const display = view[kind]?.display ?? [];
  const details = Object.entries(params ?? {}).map(([k, v]) => {
    if (k === "takeCardId") {
      const card = display.find((c) => c.cardId === v);
      return `take ${card?.label ?? v}`;
    }
    return `${words(k)} ${Array.isArray(v) ? v.join(" · ") : v}`;
  });
  return [words(decision), ...details].join(" — ");
}

// --- one game ------------------------------------------------------------------------------
let watching = null;

function stopWatching() {
  watching?.abort();
  watching = null;
}

async function watch(gameId, token, fromVersion, onUpdate, onState) {
  stopWatching();
  const controller = new AbortController();
  watching = controller;
  let lastId = String(fromVersion);
  while (!controller.signal.aborted) {
    try {
      const headers = { Accept: "text/event-stream", "Last-Event-ID": lastId };
      if (token) headers.Authorization = `Bearer ${token}`;
      const response = await fetch(`/v1/games/${encodeURIComponent(gameId)}:watch`, { headers, signal: controller.signal });
      if (!response.ok) {
        const data = await response.json().catch(() => ({}));
        throw new ApiError(response.status, data.details?.[0]?.reason ?? "", data.message ?? "watch failed");
      }
      onState("live");
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value.replace(/\r\n?/g, "\n");
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event = { event: "message", data: [] };
          for (const line of block.split("\n")) {
            if (!line || line.startsWith(":")) continue;
            const at = line.indexOf(":");
            const field = at < 0 ? line : line.slice(0, at);
            const text = at < 0 ? "" : line.slice(at + 1).replace(/^ /, "");
            if (field === "data") event.data.push(text);
            else event[field] = text;
          }
          if (!event.data.length) continue;
          if (event.id) lastId = event.id;
          if (event.event === "end") {
            onState("game over");
            return;
          }
          if (event.event === "error") throw new ApiError(0, JSON.parse(event.data.join("\n")).details?.[0]?.reason ?? "", "the live stream failed");
          onUpdate(JSON.parse(event.data.join("\n")));
        }
      }
    } catch (error) {
      if (controller.signal.aborted) return;
      if (error instanceof ApiError && error.status >= 400 && error.status < 500) {
        showError(error);
        onState("stopped");
        return;
      }
    }
    onState("reconnecting…");
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}

function renderGame(app, gameId) {
  document.getElementById("where").textContent = `game ${gameId}`;
  const seated = mySeat(gameId);
  const token = seated?.token;
  const state = { view: null, log: [] };
  const liveState = h("span", { id: "live", class: "live muted" }, "connecting…");
  const logList = h("ol", { id: "log" });

  const submit = (move) => guarded(async () => {
    const body = { move, requestId: crypto.randomUUID(), expectedVersion: state.view.version };
    await api("POST", `/v1/games/${encodeURIComponent(gameId)}/moves`, body, token);
    await refresh();
  });

  const join = (input) => guarded(async () => {
    const displayName = input.value.trim();
    if (!displayName) throw new Error("Enter your name first.");
    sessionStorage.setItem("hustings.name", displayName);
    const joined = await api("POST", `/v1/games/${encodeURIComponent(gameId)}:join`, { displayName, requestId: crypto.randomUUID() });
    rememberSeat(gameId, joined);
    renderGame(app, gameId);
  });

  function draw() {
    const view = state.view;
    if (!view) return;
    const names = Object.fromEntries((view.seats ?? []).map((s) => [s.seat, s.displayName || `seat ${s.seat}`]));
    const header = h("section", { id: "summary" },
      h("h2", {}, `${view.kind} · ${enumName(view.status, "GAME_STATUS_")} · version `, h("span", { id: "version" }, view.version), " ", liveState),
      h("p", { id: "you" }, view.seat !== undefined ? `You are ${names[view.seat]} (seat ${view.seat}).` : "You are watching."),
      h("p", {}, "Seats: ", (view.seats ?? []).map((s) => h("span", { class: "chip" }, s.taken ? s.displayName : `seat ${s.seat} free`))),
      (view.toAct ?? []).length ? h("p", { id: "to-act" }, "To act: ", view.toAct.map((s) => names[s]).join(", ")) : null);
    const parts = [header];
    if (view.status === "GAME_STATUS_OPEN" && view.seat === undefined) {
      const input = h("input", { id: "join-name", placeholder: "your name", maxlength: 40, value: playerName() });
      parts.push(h("section", {}, h("h2", {}, "Join"), input, h("button", { id: "join-game", onclick: () => join(input) }, "Join this game")));
    }
    const moves = view.legalMoves ?? [];
    if (moves.length) {
      parts.push(h("section", { id: "moves" }, h("h2", {}, `Your move (${moves.length})`),
        h("div", { class: "moves" }, moves.map((m) => h("button", { class: "move", onclick: () => submit(m) }, moveLabel(m, view))))));
    }
    if (view.outcome?.placings?.length) {
      parts.push(h("section", { id: "outcome" }, h("h2", {}, "Result"),
        h("ol", {}, view.outcome.placings.map((p) => h("li", {}, `${p.rank}. ${p.name} — ${p.score} ${p.detail ?? ""}`)))));
    }
    // The view's oneof member for the kind, in its JSON name (spin_doctors → spinDoctors).
    const kindView = view[view.kind.replace(/_([a-z])/g, (_, c) => c.toUpperCase())];
    if (kindView && BOARDS[view.kind]) parts.push(...BOARDS[view.kind](kindView, view));
    else if (kindView) parts.push(h("section", { id: "board" }, h("h2", {}, "Board"), renderValue(kindView)));
    parts.push(h("section", {}, h("h2", {}, "Log"), logList));
    app.replaceChildren(...parts);
  }

  function addLog(entries) {
    for (const entry of entries ?? []) {
      for (const event of entry.events ?? []) {
        const { version, seat, ...body } = event;
        const [kind, detail] = Object.entries(body)[0] ?? ["", {}];
        const [what] = kind === "seatTaken" ? ["seat taken"] : Object.keys(detail ?? {});
        const who = seat !== undefined ? `seat ${seat}` : "table";
        logList.prepend(h("li", {}, `v${version} · ${who} · ${words(what ?? kind)}`));
      }
    }
    while (logList.childElementCount > MAX_LOG) logList.lastElementChild.remove();
  }

  async function refresh() {
    const { view } = await api("GET", `/v1/games/${encodeURIComponent(gameId)}/view`, undefined, token);
    if (!state.view || BigInt(view.version) >= BigInt(state.view.version)) {
      state.view = view;
      draw();
    }
  }

  guarded(async () => {
    await refresh();
    const { entries } = await api("GET", `/v1/games/${encodeURIComponent(gameId)}/history`, undefined, token);
    addLog((entries ?? []).filter((e) => BigInt(e.version) <= BigInt(state.view.version)));
    watch(gameId, token, state.view.version, (update) => {
      addLog(update.entries);
      if (!state.view || BigInt(update.version) >= BigInt(state.view.version)) {
        state.view = update.view;
        draw();
      }
    }, (text) => { liveState.textContent = text; });
  });
}

// --- routing -------------------------------------------------------------------------------
function route() {
  stopWatching();
  clearError();
  const app = document.getElementById("app");
  const match = location.hash.match(/^#\/game\/([A-Za-z0-9_-]{1,64})$/);
  if (match) renderGame(app, match[1]);
  else guarded(() => renderLobby(app));
}

window.addEventListener("hashchange", route);
route();
