// An example bot over the network, for bot authors to copy: a seat played through the REST/JSON
// face with the typed client (rest.ts and the protobuf-es stubs in gen/), whatever the game kind,
// following the game over its Server-Sent Events stream.
//
//   npm ci && npm run build
//   node dist/example_bot.js --server http://127.0.0.1:8080 --kind stimmvieh --players 4   # you + 3 server bots
//   node dist/example_bot.js --server http://127.0.0.1:8080 --game GAME_ID                 # join an open game
//
// It prints one JSON line when the game is over: {"gameId", "seat", "finished", "rank", "decided"
// (the versions its moves reached), "watchedFrom" (the version each stream was opened after)};
// what it does on the way goes to stderr.
//
// What a bot may rely on:
// - Every view lists the seat's legal moves, fully enumerated (`view.legalMoves`): sending one of
//   them verbatim is always legal, so a bot needs no rules of its own. Change `choose` to play
//   better.
// - A seat acts when it is in `view.toAct`; a few games also list moves that may be made at any
//   time to seats that owe nothing (they are optional: this bot makes them only when it owes one).
// - Moves are idempotent under their request id: one id per decision, sent unchanged on every
//   retry, so an answer lost in transit is simply asked again. The client retries 503, 504 and
//   network errors itself; when even that fails (or no replica answered otherwise: a "no answer"
//   code, CANCELLED, UNKNOWN, DEADLINE_EXCEEDED or UNAVAILABLE, or a balancer's bare 502), this
//   bot keeps the decision (its move and its id) and sends it again, unchanged, once it is
//   connected again and the table is still at the same version.
// - `expectedVersion` makes a move made on an old view fail with 409 ABORTED (`STALE_VERSION`)
//   instead of landing on a table that changed; the stream then brings the newer view.
// - A seat whose time ran out too often in a row (or that left) is absent: its server-side bot
//   then makes each of its decisions at once, ahead of anything this bot sends. The view says so
//   (`view.seats[seat].absent`), and this bot calls ReturnToGame to decide for itself again.
// - A move or a return refused 429 RESOURCE_EXHAUSTED past the client's own retries (or by a
//   balancer's bare 429) is sent again after the retry hint, on the same stream; a return refused GAME_OVER (the game ended
//   first) ends the bot with the final view; any other refusal (500 INTERNAL, say) ends it with
//   the reason, and exit status 1.
// - The stream (`GET /v1/games/{id}:watch`) may break (a replica restarts, a proxy cuts it) or go
//   silent (a connection that died without a word): reopen it with `Last-Event-ID` one version
//   before the last one seen, on any replica; nothing is lost, and the first update carries the
//   current view. The server sends a `: keepalive` comment after 15 s of quiet, so a stream with
//   no byte for 30 s is taken for dead. With several `--server` addresses (replicas of one store)
//   each reconnection goes to the next one.

import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

import { GameStatus, type GameView, type Move } from "./gen/hustings/v1/game_pb.js";
import { GameService } from "./gen/hustings/v1/game_service_pb.js";
import { checkedDisplayName } from "./display_names.js";
import { HustingsError, HustingsRest, StreamBroken, backoffMs, hintedPauseMs, newRequestId } from "./rest.js";

/** Streams opened at most: every break or silence costs one. */
const MAX_WATCHES = 50;
/** Decisions at most, so that a game that never ends cannot hold the bot for ever. */
const MAX_DECISIONS = 10_000;
/** The pause before watching again is drawn from zero up to a cap: this after a stream that
 * brought an update, doubled for each stream in a row that brought none, up to 4 s. */
const RECONNECT_PAUSE_MS = 500;
const RECONNECT = { firstBackoffMs: RECONNECT_PAUSE_MS, maxBackoffMs: 4_000, multiplier: 2 };
// gRPC codes (in an `event: error`) after which watching again may succeed: CANCELLED, UNKNOWN,
// DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED (a replica's stream cap: try another), INTERNAL, UNAVAILABLE.
const TRANSIENT_CODES = new Set([1, 2, 4, 8, 13, 14]);
// HTTP statuses of a stream refused at its start, or of a call, that are worth another try.
const TRANSIENT_STATUSES = new Set([429, 500, 502, 503, 504]);
// Refusals of a move that only say the table moved on (ABORTED, FAILED_PRECONDITION).
const MOVED_ON_CODES = new Set([9, 10]);
// A move (or a return to an absent seat) refused RESOURCE_EXHAUSTED (a limit such as the
// address's rate of calls, past what the client's own retries wait for) is sent again, unchanged,
// after the server's retry hint (or a growing pause without one), this many times in a row at
// most; the stream is not broken by it. Any other refusal (INTERNAL, say) ends the bot with its
// reason, but for those that say the table moved on (a move) or the seat is back (a return).
const RESOURCE_EXHAUSTED = 8;
// Errors of a move that say no replica answered it (CANCELLED, UNKNOWN, DEADLINE_EXCEEDED, UNAVAILABLE).
const UNANSWERED_CODES = new Set([1, 2, 4, 14]);
// The same from a balancer in front of the replicas: a bare 502, 503 or 504 (no google.rpc.Status).
const UNANSWERED_STATUSES = new Set([502, 503, 504]);
const MAX_MOVE_PACES = 20;

/** A move, or a return to an absent seat, refused for good: the bot ends with its reason
 * rather than watch again. */
export class Refused extends Error {
  override name = "Refused";
  constructor(
    readonly call: "move" | "return",
    readonly version: bigint,
    readonly refusal: HustingsError,
  ) {
    super(`${call} at version ${version} refused: ${refusal.message}`);
  }
}

/** The name `Refused` had when only a move could end the bot. */
export const MoveRefused = Refused;

/** The decision: one of the listed legal moves. This one picks at random; yours can look at
 * `view` (the table as your seat sees it, in the game's member of `view.game`) and do better. */
export function choose(view: GameView, random: () => number): Move {
  const moves = view.legalMoves;
  return moves[Math.floor(random() * moves.length)]!;
}

/** One decision: the move chosen at a version and the request id every attempt carries. */
interface Decision {
  version: bigint;
  requestId: string;
  move: Move;
}

/** What playing a seat came to. */
export interface Played {
  view: GameView;
  /** The version each stream was opened after (Last-Event-ID), the first one included. */
  watchedFrom: bigint[];
  /** The versions that this seat's decisions reached, one per decision applied. */
  decided: bigint[];
  /** The versions at which the seat was found absent and came back (ReturnToGame). */
  returned: bigint[];
}

/**
 * Play `seat` (with its token) of `gameId` until the game is over, following the game over the
 * event stream of `servers[0]`, and of the next server after each break.
 */
export async function play(
  servers: HustingsRest[],
  gameId: string,
  seat: number,
  token: string,
  random: () => number,
  log: (line: string) => void = () => {},
): Promise<Played> {
  let seen = 0n;
  let decidedAt = -1n; // the version our last move reached: older views are already answered
  let pending: Decision | undefined; // a decision whose answer we have not had yet
  const watchedFrom: bigint[] = [];
  const decided: bigint[] = [];
  const returned: bigint[] = [];
  let fruitless = 0; // streams in a row that brought no update (refused, or broken before one)
  for (let watch = 0; watch < MAX_WATCHES && decided.length < MAX_DECISIONS; watch++) {
    const api = servers[watch % servers.length]!;
    // One version back, so that the first update carries the current view.
    const from = seen > 0n ? seen - 1n : 0n;
    watchedFrom.push(from);
    log(`watching ${gameId} after version ${from} at ${api.baseUrl}`);
    let hintMs: number | undefined;
    fruitless += 1;
    try {
      for await (const update of api.watch(gameId, token, from)) {
        fruitless = 0;
        const view = update.view;
        if (view === undefined) continue;
        if (view.version > seen) seen = view.version;
        if (view.status === GameStatus.FINISHED) return { view, watchedFrom, decided, returned };
        if (view.version < decidedAt) continue; // already answered: our own step is ahead of this view
        if (view.status === GameStatus.ACTIVE && view.seats.some((s) => s.seat === seat && s.absent)) {
          // Our seat's bot decides at once while we are away: come back first. The return is a
          // step of its own, and the stream brings the view after it.
          log(`seat ${seat} absent at version ${view.version}: returning`);
          for (let paced = 0; ; paced++) {
            try {
              decidedAt = (await api.returnToGame(gameId, token)).view?.version ?? decidedAt;
              returned.push(view.version);
            } catch (error) {
              // The network, or no replica answered: the stream is watched again.
              if (!(error instanceof HustingsError) || unanswered(error)) throw error;
              if (slowDown(error) && paced < MAX_MOVE_PACES) {
                log(`return at version ${view.version} refused: ${error.reason}; asking again`);
                await sleep(reconnectPauseMs(paced, error.retryAfterMs, Math.random));
                continue;
              }
              if (error.reason === "GAME_OVER") {
                // The game ended before the return reached it: its final view.
                const final = await api.view(gameId, token);
                if (final.status === GameStatus.FINISHED) return { view: final, watchedFrom, decided, returned };
              }
              // NOT_ABSENT: back already, by another program of this seat.
              if (error.reason !== "NOT_ABSENT") throw new Refused("return", view.version, error);
            }
            break;
          }
          continue;
        }
        if (!view.toAct.includes(seat) || view.legalMoves.length === 0) continue;
        // One decision per version; the same one again (move and request id) if its answer was lost.
        if (pending === undefined || pending.version !== view.version) {
          pending = { version: view.version, requestId: newRequestId(), move: choose(view, random) };
        }
        for (let paced = 0; ; paced++) {
          try {
            const answer = await api.call(
              GameService.method.submitMove,
              { gameId, move: pending.move, requestId: pending.requestId, expectedVersion: pending.version },
              token,
            );
            decidedAt = answer.version;
            decided.push(answer.version);
          } catch (error) {
            // The network, or no replica answered (the client's retries included): the stream
            // is watched again, and the decision kept.
            if (!(error instanceof HustingsError) || unanswered(error)) throw error;
            if (slowDown(error) && paced < MAX_MOVE_PACES) {
              // A limit asks us to slow down: the same decision (move and id) again after the
              // server's hint, or a growing pause without one.
              log(`move at version ${pending.version} refused: ${error.reason}; sending it again`);
              await sleep(reconnectPauseMs(paced, error.retryAfterMs, Math.random));
              continue;
            }
            // The table moved on, or the move is no longer ours to make: the stream brings the
            // newer view. Anything else ends the bot with its reason.
            if (!MOVED_ON_CODES.has(error.code)) throw new Refused("move", pending.version, error);
            // Expected at tables where several decide at once.
            log(`move at version ${pending.version} refused: ${error.reason}; the table moved on, deciding on its next view`);
          }
          break;
        }
        pending = undefined;
      }
      throw new StreamBroken("the stream ended before the game did");
    } catch (error) {
      if (!transient(error)) throw error;
      log(`stream broken at version ${seen}: ${describe(error)}`);
      // A stream refused with a hint (the address at its rate of calls, which opening a stream
      // counts towards) comes back no sooner than the hint.
      if (error instanceof HustingsError) hintMs = error.retryAfterMs;
    }
    await sleep(reconnectPauseMs(fruitless, hintMs, Math.random));
  }
  const view = await servers[0]!.view(gameId, token);
  return { view, watchedFrom, decided, returned };
}

/**
 * The pause before watching again after `fruitless` streams in a row that brought no update:
 * drawn from zero up to a cap that doubles with each of them (full jitter, as the client's own
 * retries), and no shorter than the server's retry hint when the refusal carried one. Drawn with
 * `Math.random`, apart from the seeded choices, so that `--seed` replays them however the
 * connection fares.
 */
export function reconnectPauseMs(fruitless: number, retryAfterMs: number | undefined, random: () => number): number {
  const pause = backoffMs(RECONNECT, fruitless, random);
  return retryAfterMs === undefined ? pause : Math.max(pause, hintedPauseMs(retryAfterMs, random));
}

/** Whether a call's error asks the bot to slow down: RESOURCE_EXHAUSTED (a limit of the
 * server's), whatever HTTP status carries it, or a balancer's bare 429 (its Retry-After is the
 * hint). */
function slowDown(error: HustingsError): boolean {
  return error.code === RESOURCE_EXHAUSTED || (error.code === 0 && error.httpStatus === 429);
}

/** Whether a call's error says that no replica answered it (so the stream is watched again, and
 * the decision kept): a "no answer" code, whatever HTTP status carries it (CANCELLED comes as
 * 499), or a balancer's bare 502, 503 or 504. */
function unanswered(error: HustingsError): boolean {
  return UNANSWERED_CODES.has(error.code) || (error.code === 0 && UNANSWERED_STATUSES.has(error.httpStatus));
}

/** Whether watching again (on this or another replica) may get further. */
function transient(error: unknown): boolean {
  if (error instanceof HustingsError) {
    return TRANSIENT_STATUSES.has(error.httpStatus) || (error.httpStatus === 200 && TRANSIENT_CODES.has(error.code)) ||
      unanswered(error);
  }
  if (error instanceof StreamBroken || error instanceof TypeError) return true; // fetch's network errors are TypeErrors
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** mulberry32: a small seeded generator, so that `--seed` replays the bot's choices. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const USAGE = `usage: node dist/example_bot.js [--server URL[,URL...]] [--game GAME_ID] [--kind KIND]
    [--players N] [--bot-level random|greedy|strong] [--name NAME] [--seed N]
  Joins GAME_ID, or creates a game of KIND with server-side bots in the other seats, plays
  one seat to the end and prints one JSON line. --server: the REST/JSON face of one or more
  replicas (default http://127.0.0.1:8080).`;

const OPTIONS = {
  server: { type: "string", default: "http://127.0.0.1:8080" }, // comma-separated replicas
  game: { type: "string", default: "" }, // join this game; empty: create one
  kind: { type: "string", default: "stimmvieh" },
  players: { type: "string", default: "4" },
  "bot-level": { type: "string", default: "" }, // random (the default when empty), greedy, strong
  name: { type: "string", default: "Example bot" },
  seed: { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** The command line's options; a flag it does not know, or a value missing, is one line and
 * the usage on stderr, status 2 (as the Python bot's argparse does). */
function options(): ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>["values"] {
  try {
    return parseArgs({ options: OPTIONS }).values;
  } catch (error) {
    process.stderr.write(`example_bot: ${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
}

/** Join (or create, with server-side bots in the other seats) and play one game. */
async function main(): Promise<void> {
  const values = options();
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const servers = values.server.split(",").map((url) => new HustingsRest(url.trim()));
  const api = servers[0]!;
  const random = values.seed === undefined ? Math.random : seeded(Number(values.seed));
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  let gameId = values.game;
  if (!gameId) {
    checkedDisplayName(values.name); // before the table is made: a refused name leaves none behind
    const players = Number(values.players);
    const botSeats = Array.from({ length: players - 1 }, (_, i) => i + 1);
    gameId = (await api.createGame(values.kind, { players }, { botSeats, botLevel: values["bot-level"] })).gameId;
    log(`created ${values.kind} game ${gameId} with server-side bots in seats ${botSeats.join(", ")}`);
  }
  const joined = await api.call(GameService.method.joinGame, { gameId, displayName: values.name });
  const played = await play(servers, gameId, joined.seat, joined.seatToken, random, log);
  const placing = played.view.outcome?.placings.find((p) => p.seat === joined.seat);
  console.log(
    JSON.stringify({
      gameId,
      seat: joined.seat,
      finished: played.view.status === GameStatus.FINISHED,
      rank: placing?.rank ?? null,
      decided: played.decided.map(String),
      watchedFrom: played.watchedFrom.map(String),
    }),
  );
}

// Run as a program, not when imported by another module.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    // A refusal (a name, a move) is told by its reason and message; anything else in full.
    console.error(error instanceof HustingsError || error instanceof Refused ? `${error.name}: ${error.message}` : error);
    process.exit(1);
  });
}
