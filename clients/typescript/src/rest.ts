// A typed client for the REST/JSON face of hustings.v1.GameService.
//
// Routes are read from the proto's google.api.http annotations carried by the generated
// descriptors (the same rules the server routes by), so this file knows no URL of its own.
// Messages travel in protobuf's canonical JSON mapping (toJson / fromJson of protobuf-es).
//
// Retries: every call is one logical call with one request id (a request message that has a
// request_id field and leaves it empty gets a fresh random one), sent again unchanged on every
// attempt. Only HTTP 503 (UNAVAILABLE), 504 (DEADLINE_EXCEEDED), a network error or an attempt
// that ran out of time are retried, after a pause with exponential backoff and full jitter;
// a refusal that carries the server's retry hint (429 TOO_MANY_GAMES_CREATED, 503
// STORE_UNAVAILABLE: the RetryInfo in its body, else a 429's Retry-After header) is retried after
// at least the hinted delay, with jitter on top, while the budget allows, else thrown at once with
// the hint in `retryAfterMs`. Anything else (409 ABORTED on a stale version, 400 an illegal move,
// a 429 without a hint) is the caller's to handle.
//
// The table calls have typed methods (createGame with table settings, leaveGame, returnToGame,
// takeOverSeat, addBot, playAgain). PlayAgain answers every call about one finished game with the
// same next game, so a blind retry is safe. LeaveGame, ReturnToGame and AddBot carry no request
// id: a retry after an attempt that may have been applied takes the refusal that says it was
// (ALREADY_ABSENT, NOT_ABSENT, SEAT_TAKEN / GAME_FULL with a bot in the seat) as the answer, and
// addBot names its seat in every attempt so that a retry cannot seat a second bot.
//
// WatchGame: `watch` reads the game's Server-Sent Events stream (`GET /v1/games/{id}:watch`) as
// typed updates. It ends with the game (at once for a finished game watched from its last
// version, which the server answers 204 No Content), throws HustingsError for a refusal, and
// StreamBroken when no byte comes for `quietMs` (the server sends a keepalive comment after 15 s
// of quiet): reopen it from one version before the last one seen, on any replica, and nothing is
// lost.

import {
  create,
  fromJson,
  getOption,
  hasOption,
  toJson,
  type DescMessage,
  type DescMethodUnary,
  type JsonObject,
  type JsonValue,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import { http } from "./gen/google/api/annotations_pb.js";
import type { GameOptionsSchema, GameView, TableSettingsSchema } from "./gen/hustings/v1/game_pb.js";
import {
  AddBotResponseSchema,
  GameService,
  LeaveGameResponseSchema,
  ReturnToGameResponseSchema,
  WatchGameResponseSchema,
  type AddBotResponse,
  type CreateGameResponse,
  type LeaveGameResponse,
  type PlayAgainResponse,
  type ReturnToGameResponse,
  type TakeOverSeatResponse,
  type WatchGameResponse,
} from "./gen/hustings/v1/game_service_pb.js";

/**
 * A refused request: the HTTP status and the google.rpc.Status with its ErrorInfo reason, and
 * the server's retry hint in milliseconds (`retryAfterMs`, undefined when it gave none).
 */
export class HustingsError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(`${reason || httpStatus}: ${message}`);
    this.name = "HustingsError";
  }
}

/**
 * How one logical call is retried: bounded attempts, each with its own deadline, and a budget.
 * Retries after a hinted refusal are not counted in `maxAttempts` (the server paces them, the
 * budget bounds them), except that a policy of one attempt never retries.
 */
/** A stream that stayed silent past its quiet limit, or ended before the game did. */
export class StreamBroken extends Error {
  override name = "StreamBroken";
}

/** Twice the server's keepalive interval: a stream silent this long is taken for dead. */
export const DEFAULT_QUIET_MS = 30_000;

export interface RetryPolicy {
  /** Attempts at most, the first included (1: never retry). */
  maxAttempts: number;
  /** Each attempt's own deadline. */
  attemptTimeoutMs: number;
  /** The whole call, attempts and pauses, ends within this. */
  budgetMs: number;
  /** The cap of the first pause; each later cap is `multiplier` times the one before. */
  firstBackoffMs: number;
  /** No pause is longer than this. */
  maxBackoffMs: number;
  multiplier: number;
}

/** Six attempts of at most 10 s each, within 30 s, pauses from 50 ms to 2 s. */
export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 6,
  attemptTimeoutMs: 10_000,
  budgetMs: 30_000,
  firstBackoffMs: 50,
  maxBackoffMs: 2_000,
  multiplier: 2,
};

// The statuses after which the same request may still succeed: the replica or the store could
// not answer (or the answer was lost), which says nothing about the request itself.
const RETRY_HTTP_STATUSES = new Set([503, 504]);

/** Full jitter: a pause drawn uniformly from zero to the capped exponential. */
export function backoffMs(
  policy: Pick<RetryPolicy, "firstBackoffMs" | "maxBackoffMs" | "multiplier">,
  retry: number,
  random: () => number,
): number {
  const cap = Math.min(policy.maxBackoffMs, policy.firstBackoffMs * policy.multiplier ** retry);
  return random() * cap;
}

// A hinted retry waits the hint plus up to this share of it more, drawn uniformly: clients refused
// together come back spread out, and none waits less than it was asked to.
const HINT_JITTER = 0.25;
// The shortest hinted wait, whatever the hint says: a hint of zero must not make the retries spin.
const MIN_HINT_MS = 10;

/** The pause before retrying a refusal hinted `retryAfterMs`: the hint, plus up to a quarter more. */
export function hintedPauseMs(retryAfterMs: number, random: () => number): number {
  const hint = Math.max(MIN_HINT_MS, retryAfterMs);
  return hint + random() * HINT_JITTER * hint;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A fresh request id for one logical call (random, so that nobody can guess a join's): 32 hex
 * digits. Browsers offer `crypto.randomUUID` only to secure contexts (https, localhost); a page
 * served over plain http from another host draws the same 128 bits with `getRandomValues`.
 */
export function newRequestId(): string {
  const crypto = globalThis.crypto;
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID().replaceAll("-", "");
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

interface Route {
  verb: string;
  template: string;
  body: string;
}

function routeOf(method: DescMethodUnary): Route {
  if (!hasOption(method, http)) {
    throw new Error(`${method.parent.typeName}.${method.name} has no google.api.http rule`);
  }
  const rule = getOption(method, http);
  if (rule.pattern.case === undefined || rule.pattern.case === "custom") {
    throw new Error(`${method.name}: unsupported HTTP pattern`);
  }
  return { verb: rule.pattern.case.toUpperCase(), template: rule.pattern.value, body: rule.body };
}

const VARIABLE = /\{([A-Za-z_][A-Za-z0-9_.]*)(?:=[^}]*)?\}/g;

function toCamel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** addBot chooses a free seat again when a player took the one it chose; this many times at most. */
const MAX_SEAT_CHOICES = 3;

/**
 * Asked, for a call without a request id, when an attempt is refused after an earlier attempt
 * may have been applied (503, 504, a network error, a timeout): the answer to give when the
 * refusal only says that the earlier attempt did the job, else undefined (the refusal stands).
 */
export type Settled<O extends DescMessage> = (refused: HustingsError) => Promise<MessageShape<O> | undefined>;

/**
 * Calls GameService over HTTP: `await client.call(GameService.method.joinGame, {...})`.
 * `fetchImpl` is called as a plain function, never as a method of the client: a browser's
 * `window.fetch` called on another object throws "Illegal invocation".
 */
export class HustingsRest {
  constructor(
    readonly baseUrl: string,
    readonly fetchImpl: typeof fetch = fetch,
    readonly retry: RetryPolicy = DEFAULT_RETRY,
    readonly random: () => number = Math.random,
  ) {}

  /** One logical call, retried under one request id (see RetryPolicy); throws HustingsError. */
  async call<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    input: MessageInitShape<I>,
    seatToken?: string,
    settled?: Settled<O>,
  ): Promise<MessageShape<O>> {
    const message = create(method.input, input);
    const requestId = method.input.fields.find((f) => f.name === "request_id");
    if (requestId !== undefined && requestId.fieldKind === "scalar" && !(message as Record<string, unknown>)[requestId.localName]) {
      (message as Record<string, unknown>)[requestId.localName] = newRequestId();
    }
    const policy = this.retry;
    const deadline = Date.now() + policy.budgetMs;
    let possiblyApplied = false;
    let failures = 0; // attempts refused with 503, 504, a network error or a timeout
    for (;;) {
      const remaining = deadline - Date.now();
      try {
        return await this.send(method, message, seatToken, Math.max(1, Math.min(policy.attemptTimeoutMs, remaining)));
      } catch (error) {
        let pause: number;
        if (error instanceof HustingsError && error.retryAfterMs !== undefined) {
          // A hinted refusal is retried no sooner than asked, paced by the server rather than
          // counted among the attempts. A 503 with a hint (the store unreachable) may still
          // follow an attempt that was applied, as any 503 may.
          if (policy.maxAttempts <= 1) throw error;
          if (retryable(error)) possiblyApplied = true;
          pause = hintedPauseMs(error.retryAfterMs, this.random);
        } else if (retryable(error)) {
          possiblyApplied = true;
          pause = backoffMs(policy, failures, this.random);
          failures++;
          if (failures >= policy.maxAttempts) throw error;
        } else {
          if (possiblyApplied && settled !== undefined && error instanceof HustingsError) {
            const answer = await settled(error);
            if (answer !== undefined) return answer;
          }
          throw error;
        }
        if (Date.now() + pause >= deadline) throw error;
        await sleep(pause);
      }
    }
  }

  /** The caller's view (a spectator's without a seat token). */
  async view(gameId: string, seatToken?: string): Promise<GameView> {
    const { view } = await this.call(GameService.method.getView, { gameId }, seatToken);
    if (view === undefined) throw new Error("GetView answered without a view");
    return view;
  }

  /**
   * CreateGame with the kind's options and, optionally, how the table runs (`table`: clocks,
   * bot seats, takeover; absent: no clock, no bots). Every attempt sends the same request,
   * table included, under one request id, so a retry answers with the first game.
   */
  createGame(
    kind: string,
    options: MessageInitShape<typeof GameOptionsSchema>,
    table?: MessageInitShape<typeof TableSettingsSchema>,
    requestId = "",
  ): Promise<CreateGameResponse> {
    return this.call(GameService.method.createGame, { kind, options, requestId, ...(table ? { table } : {}) });
  }

  /**
   * Leave the seat of `seatToken`: in a running game it turns absent and its bot plays until
   * returnToGame; in an open game the seat is freed and the token stops working. A retry after a
   * lost answer refused ALREADY_ABSENT is answered with the seat's current view.
   */
  leaveGame(gameId: string, seatToken: string): Promise<LeaveGameResponse> {
    return this.call(GameService.method.leaveGame, { gameId }, seatToken, async (refused) =>
      refused.reason === "ALREADY_ABSENT"
        ? create(LeaveGameResponseSchema, { view: await this.view(gameId, seatToken) })
        : undefined,
    );
  }

  /**
   * Come back to the absent seat of `seatToken`: it decides for itself again. A retry after a
   * lost answer refused NOT_ABSENT is answered with the seat's current view.
   */
  returnToGame(gameId: string, seatToken: string): Promise<ReturnToGameResponse> {
    return this.call(GameService.method.returnToGame, { gameId }, seatToken, async (refused) =>
      refused.reason === "NOT_ABSENT"
        ? create(ReturnToGameResponseSchema, { view: await this.view(gameId, seatToken) })
        : undefined,
    );
  }

  /**
   * A newcomer takes over an absent seat (or a bot's) where the table allows it; the answer
   * carries the seat's fresh token. One request id (given, or drawn here) for every attempt, so a
   * retry gets the same token; keep it as secret as the token.
   */
  takeOverSeat(gameId: string, seat: number, displayName: string, requestId = ""): Promise<TakeOverSeatResponse> {
    return this.call(GameService.method.takeOverSeat, { gameId, seat, displayName, requestId });
  }

  /**
   * A server-side bot takes a free seat of an open game (`level` "" for the best the server has):
   * `seat`, or the lowest free one. AddBot has no request id, so every attempt names the seat
   * (read from the game first when none is given, and chosen again when a player takes it
   * first); a retry refused SEAT_TAKEN or GAME_FULL while a bot sits in that seat is the answer.
   * At a listed table only a player seated at it (`token`, a seat token of the game) or the
   * client address that made it may (else 403 NOT_AT_THE_TABLE).
   */
  async addBot(gameId: string, seat?: number, level = "", token?: string): Promise<AddBotResponse> {
    for (let choice = 0; choice < MAX_SEAT_CHOICES; choice++) {
      let wanted = seat;
      if (wanted === undefined) {
        wanted = (await this.view(gameId)).seats.find((s) => !s.taken)?.seat;
        if (wanted === undefined) {
          // Nothing to pin: ask once for any seat and let the server say why not.
          const once = new HustingsRest(this.baseUrl, this.fetchImpl, { ...this.retry, maxAttempts: 1 }, this.random);
          return once.call(GameService.method.addBot, { gameId, level }, token);
        }
      }
      const pinned = wanted;
      try {
        return await this.call(GameService.method.addBot, { gameId, seat: pinned, level }, token, async (refused) => {
          if (refused.reason !== "SEAT_TAKEN" && refused.reason !== "GAME_FULL") return undefined;
          const view = await this.view(gameId);
          return view.seats[pinned]?.bot ? create(AddBotResponseSchema, { seat: pinned, view }) : undefined;
        });
      } catch (error) {
        // A player took the seat we chose between our look and the bot: choose again.
        if (seat !== undefined || !(error instanceof HustingsError) || error.reason !== "SEAT_TAKEN") throw error;
      }
    }
    throw new HustingsError(409, 10, "TOO_MUCH_CONTENTION", "free seats were taken while choosing one");
  }

  /**
   * Start the next game at the table of the finished game `gameId` (`seatToken`: a seat token of
   * it): the same kind, options and table, its bots seated, a seed the server draws. Every call
   * about one finished game, from any of its seats, answers with the same next game, so a retry
   * is safe. Nobody but its bots is seated in it: join it with `joinGame` as usual.
   */
  playAgain(gameId: string, seatToken: string): Promise<PlayAgainResponse> {
    return this.call(GameService.method.playAgain, { gameId }, seatToken);
  }

  /**
   * The updates of WatchGame after `fromVersion` (0 for the whole game), read from the
   * Server-Sent Events stream with the seat's token (none: a spectator's view). The generator
   * ends with the game (`event: end`, or at once when the game is over and `fromVersion` is its
   * last version: the server answers 204 No Content); it throws HustingsError for a refusal at
   * the start or an `event: error`, and StreamBroken when no byte comes for `quietMs` or the
   * stream closes without `event: end` (a proxy or a replica went away: resume it). Stopping
   * early (`break`) closes the connection.
   */
  async *watch(
    gameId: string,
    seatToken?: string,
    fromVersion = 0n,
    quietMs = DEFAULT_QUIET_MS,
  ): AsyncGenerator<WatchGameResponse> {
    const rule = getOption(GameService.method.watchGame, http);
    if (rule.pattern.case !== "get") throw new Error("WatchGame has no GET rule");
    const path = rule.pattern.value.replace(/\{game_id\}/, encodeURIComponent(gameId));
    const controller = new AbortController();
    let quiet: ReturnType<typeof setTimeout> | undefined;
    const arm = (): void => {
      clearTimeout(quiet);
      quiet = setTimeout(() => controller.abort(new StreamBroken(`no byte for ${quietMs} ms`)), quietMs);
    };
    const headers: Record<string, string> = { Accept: "text/event-stream", "Last-Event-ID": fromVersion.toString() };
    if (seatToken) headers["Authorization"] = `Bearer ${seatToken}`;
    arm();
    try {
      const fetchImpl = this.fetchImpl;
      const response = await fetchImpl(new URL(path, this.baseUrl), { headers, signal: controller.signal });
      // 204: the game is over and nothing follows fromVersion (its last version): the end.
      if (response.status === 204) return;
      if (!response.ok || response.body === null) throw refusal(response.status, await response.text(), response);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        arm();
        const { value, done } = await reader.read();
        clearTimeout(quiet); // the caller's own work between reads is not the stream's silence
        // The server ends a stream with `event: end` or `event: error`: one closed without either
        // (a proxy's idle timeout, a replica killed) broke, and the game goes on.
        if (done) throw new StreamBroken("the stream closed before the game ended");
        buffer += value.replace(/\r\n?/g, "\n");
        for (let cut = buffer.indexOf("\n\n"); cut >= 0; cut = buffer.indexOf("\n\n")) {
          const event = parseEvent(buffer.slice(0, cut));
          buffer = buffer.slice(cut + 2);
          if (event.data === undefined) continue; // a comment (keepalive) or the retry hint
          if (event.name === "end") return;
          if (event.name === "error") throw refusal(200, event.data);
          yield fromJson(WatchGameResponseSchema, JSON.parse(event.data) as JsonValue, { ignoreUnknownFields: true });
        }
      }
    } finally {
      clearTimeout(quiet);
      controller.abort(); // closes the connection when the caller stops early
    }
  }

  /** One attempt: one HTTP request under its own deadline. */
  private async send<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    message: MessageShape<I>,
    seatToken: string | undefined,
    timeoutMs: number,
  ): Promise<MessageShape<O>> {
    const route = routeOf(method);
    const json = toJson(method.input, message) as JsonObject;
    const path = route.template.replace(VARIABLE, (_, field: string) => {
      const key = toCamel(field);
      const value = json[key];
      delete json[key];
      return encodeURIComponent(String(value ?? ""));
    });
    const url = new URL(path, this.baseUrl);
    const init: RequestInit = {
      method: route.verb,
      headers: { Accept: "application/json" },
      signal: AbortSignal.timeout(timeoutMs),
    };
    const headers = init.headers as Record<string, string>;
    if (seatToken) headers["Authorization"] = `Bearer ${seatToken}`;
    if (route.body === "*") {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(json);
    } else {
      for (const [key, value] of Object.entries(json)) {
        for (const item of Array.isArray(value) ? value : [value]) {
          url.searchParams.append(key, String(item as JsonValue));
        }
      }
    }
    const fetchImpl = this.fetchImpl;
    const response = await fetchImpl(url, init);
    const text = await response.text();
    if (!response.ok) throw refusal(response.status, text, response); // a balancer may answer in plain text
    const parsed: unknown = text ? JSON.parse(text) : {};
    return fromJson(method.output, parsed as JsonValue, { ignoreUnknownFields: true });
  }
}

/** The JSON body of a refusal: a google.rpc.Status in protobuf's JSON mapping. */
interface ErrorBody {
  code?: number;
  message?: string;
  details?: { "@type"?: string; reason?: string; retryDelay?: string }[];
}

/**
 * The server's retry hint in milliseconds: the RetryInfo in the body (its exact delay, e.g.
 * "0.500s"; Retry-After carries it rounded up to whole seconds), else a 429's Retry-After
 * header (seconds, or an HTTP date, as a balancer may send); undefined without either.
 */
function retryHintMs(status: ErrorBody, response: Response | undefined): number | undefined {
  const info = status.details?.find((d) => d["@type"]?.endsWith("/google.rpc.RetryInfo"));
  const delay = info?.retryDelay?.match(/^(\d+(?:\.\d+)?)s$/);
  if (delay) return Number(delay[1]) * 1000;
  // Only a refused answer has a header to read: a stream's `event: error` has its body alone.
  const header = response?.status === 429 ? response.headers.get("Retry-After") : null;
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** A refusal's body (a google.rpc.Status in JSON, or a proxy's plain text) as a HustingsError. */
function refusal(httpStatus: number, text: string, response?: Response): HustingsError {
  const status = (parseOrNull(text) ?? {}) as ErrorBody;
  const hint = retryHintMs(status, response);
  return new HustingsError(httpStatus, status.code ?? 0, status.details?.[0]?.reason ?? "", status.message ?? text, hint);
}

/** One event block of a Server-Sent Events stream: its `event:` name and its `data:` lines joined
 * (undefined: no data, as in a comment). */
function parseEvent(block: string): { name: string; data: string | undefined } {
  let name = "message";
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const at = line.indexOf(":");
    const field = at < 0 ? line : line.slice(0, at);
    const text = at < 0 ? "" : line.slice(at + 1).replace(/^ /, "");
    if (field === "data") data.push(text);
    else if (field === "event") name = text;
  }
  return { name, data: data.length ? data.join("\n") : undefined };
}

function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** A 503 or 504, a network error (fetch's TypeError) or an attempt that ran out of time. */
function retryable(error: unknown): boolean {
  if (error instanceof HustingsError) return RETRY_HTTP_STATUSES.has(error.httpStatus);
  if (error instanceof TypeError) return true;
  return error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
}
