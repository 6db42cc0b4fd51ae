// The typed example: create a Stimmvieh game, fill its seats, look at seat 0's view and play
// its first legal move, all over the REST/JSON face with fetch.
//
//   npm ci && npm run build && node dist/example.js http://127.0.0.1:8080

import { GameService } from "./gen/hustings/v1/game_service_pb.js";
import { GameStatus, type GameView } from "./gen/hustings/v1/game_pb.js";
import { HustingsError, HustingsRest } from "./rest.js";

async function main(baseUrl: string): Promise<void> {
  const api = new HustingsRest(baseUrl);
  const players = 3;
  const created = await api.call(GameService.method.createGame, {
    kind: "stimmvieh",
    options: { players, game: { case: "stimmvieh", value: {} } },
  });
  const seats: { seat: number; seatToken: string }[] = [];
  for (const name of ["Ada", "Bo", "Cy"].slice(0, players)) {
    const joined = await api.call(GameService.method.joinGame, { gameId: created.gameId, displayName: name });
    seats.push({ seat: joined.seat, seatToken: joined.seatToken });
  }
  const me = seats[0]!;
  const { view } = await api.call(GameService.method.getView, { gameId: created.gameId }, me.seatToken);
  const current: GameView = view!;
  if (current.status !== GameStatus.ACTIVE) throw new Error("the game did not start");
  const move = current.legalMoves[0]!;
  const played = await api.call(
    GameService.method.submitMove,
    { gameId: created.gameId, move, requestId: `example-${Date.now()}`, expectedVersion: current.version },
    me.seatToken,
  );
  // A second submission of a move already made is refused with a machine-readable reason.
  let refused = "";
  try {
    await api.call(
      GameService.method.submitMove,
      { gameId: created.gameId, move, requestId: `again-${Date.now()}`, expectedVersion: current.version },
      me.seatToken,
    );
  } catch (error) {
    if (!(error instanceof HustingsError)) throw error;
    refused = error.reason;
  }
  console.log(
    JSON.stringify({
      gameId: created.gameId,
      seats: seats.map((s) => s.seat),
      movedFrom: current.version.toString(),
      version: played.version.toString(),
      events: played.events.length,
      refused,
    }),
  );
}

const baseUrl = process.argv[2] ?? process.env["HUSTINGS_URL"] ?? "http://127.0.0.1:8080";
main(baseUrl).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
