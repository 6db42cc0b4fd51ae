// The REST/JSON face as the tables use it: calls, the live stream, the seats kept in the browser.

const RETRY_MS = 2000;

/** A call that got no answer: the server could not be reached, or its answer never came back
 * (fetch's own TypeError, in each browser's words). */
export class Unreachable extends Error {}

/** An answer of the server that is not 2xx, with its google.rpc.ErrorInfo reason. */
export class ApiError extends Error {
  constructor(status, reason, message) {
    super(message);
    this.status = status;
    this.reason = reason;
  }
}

// The server's clock as the page makes it out from its answers' Date headers (whole seconds):
// an answer sent at `sent` and received at `received` bounds the offset of the server's clock
// from this browser's to [Date − received, Date + 1 s − sent]. Every answer narrows the bounds;
// one that contradicts them (a clock was set meanwhile) starts them again. The seats' countdowns
// read it: a browser whose clock was off by minutes showed every deadline as past or far off.
let offsetLow = -Infinity;
let offsetHigh = Infinity;

function heardFrom(response, sent) {
  const date = Date.parse(response.headers.get("Date") ?? "");
  if (Number.isNaN(date)) return;
  const low = date - Date.now();
  const high = date + 1000 - sent;
  if (low > offsetHigh || high < offsetLow) {
    offsetLow = low;
    offsetHigh = high;
  } else {
    offsetLow = Math.max(offsetLow, low);
    offsetHigh = Math.min(offsetHigh, high);
  }
}

/** The server's time now (ms since the epoch), as far as its answers tell; this browser's
 * until an answer came. */
export function serverNow() {
  return Date.now() + (Number.isFinite(offsetLow) ? (offsetLow + offsetHigh) / 2 : 0);
}

/** One call; the seat token, when given, travels in the Authorization header only. */
export async function api(method, path, body, token) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const sent = Date.now();
  let response;
  let text;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    text = await response.text();
  } catch (error) {
    throw new Unreachable(String(error?.message ?? error));
  }
  heardFrom(response, sent);
  let data = {};
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    throw new ApiError(response.status, "BAD_RESPONSE", text.slice(0, 200));
  }
  if (!response.ok) throw new ApiError(response.status, data.details?.[0]?.reason ?? "", data.message ?? text);
  return data;
}

const catalogues = new Map();

/** A kind's whole catalogue (GetGameKind), fetched once per page. */
export function catalogue(kind) {
  if (!catalogues.has(kind)) {
    catalogues.set(kind, api("GET", `/v1/kinds/${encodeURIComponent(kind)}`).catch((error) => {
      catalogues.delete(kind);
      throw error;
    }));
  }
  return catalogues.get(kind);
}

// --- seats: localStorage, so that a reload or a second tab resumes the seat ------------------
// (sessionStorage keeps a copy for pages that read it there.)
const seatKey = (gameId) => `hustings.seat.${gameId}`;

/** The seat and token this browser holds in a game, or null. */
export function mySeat(gameId) {
  for (const store of [localStorage, sessionStorage]) {
    try {
      const found = JSON.parse(store.getItem(seatKey(gameId)) ?? "null");
      if (found?.token) return found;
    } catch {
      // An unreadable entry is no seat.
    }
  }
  return null;
}

/** Keep the seat token of a join (JoinGame answer) for this game. */
export function rememberSeat(gameId, joined) {
  const text = JSON.stringify({ seat: joined.seat ?? 0, token: joined.seatToken });
  localStorage.setItem(seatKey(gameId), text);
  sessionStorage.setItem(seatKey(gameId), text);
}

/** Forget the seat of a game (after leaving it for good). */
export function forgetSeat(gameId) {
  localStorage.removeItem(seatKey(gameId));
  sessionStorage.removeItem(seatKey(gameId));
}

/** The name this browser plays under. */
export function playerName() {
  return localStorage.getItem("hustings.name") ?? sessionStorage.getItem("hustings.name") ?? "";
}

/** Remember the player's name. */
export function setPlayerName(name) {
  localStorage.setItem("hustings.name", name);
  sessionStorage.setItem("hustings.name", name);
}

/**
 * Follow a game over Server-Sent Events. EventSource cannot send the Authorization header, so
 * the stream is read with fetch; Last-Event-ID resumes it without gaps after a reconnect.
 * Returns an AbortController that stops it.
 */
export function watch(gameId, token, fromVersion, onUpdate, onState, onFatal) {
  const controller = new AbortController();
  let lastId = String(fromVersion);
  (async () => {
    while (!controller.signal.aborted) {
      try {
        const headers = { Accept: "text/event-stream", "Last-Event-ID": lastId };
        if (token) headers.Authorization = `Bearer ${token}`;
        const sent = Date.now();
        const response = await fetch(`/v1/games/${encodeURIComponent(gameId)}:watch`, { headers, signal: controller.signal });
        heardFrom(response, sent);
        if (response.status === 204) {
          // The game is over and nothing follows lastId (its last version): no stream, no reconnecting.
          onState("game over");
          return;
        }
        if (response.status === 429) {
          // The address is at its rate of calls (every stream opened counts one): come back
          // when the server says, however long the page has been following.
          const seconds = Number(response.headers.get("Retry-After"));
          await response.body?.cancel();
          onState("reconnecting…");
          await new Promise((resolve) => setTimeout(resolve, Math.max(RETRY_MS, (seconds || 1) * 1000)));
          continue;
        }
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
            if (event.event === "error") {
              throw new ApiError(0, JSON.parse(event.data.join("\n")).details?.[0]?.reason ?? "", "the live stream failed");
            }
            onUpdate(JSON.parse(event.data.join("\n")));
          }
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        if (error instanceof ApiError && error.status >= 400 && error.status < 500) {
          onFatal(error);
          onState("stopped");
          return;
        }
      }
      onState("reconnecting…");
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  })();
  return controller;
}
