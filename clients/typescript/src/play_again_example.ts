// Play again, typed: a player of a finished game starts the next game at the same table and
// takes the seat it had there; a second call (a retry, or another player's) names the same game.
//
//   npm ci && npm run build && node dist/play_again_example.js BASE_URL GAME_ID SEAT_TOKEN SEAT

import { GameStatus } from "./gen/hustings/v1/game_pb.js";
import { GameService } from "./gen/hustings/v1/game_service_pb.js";
import { HustingsRest } from "./rest.js";

async function main(baseUrl: string, gameId: string, seatToken: string, seat: number): Promise<void> {
  const api = new HustingsRest(baseUrl);
  const next = await api.playAgain(gameId, seatToken);
  const again = await api.playAgain(gameId, seatToken);
  const free = next.view?.seats.find((s) => s.seat === seat && !s.taken) !== undefined;
  const joined = await api.call(GameService.method.joinGame, {
    gameId: next.gameId,
    displayName: "Ada",
    ...(free ? { seat } : {}),
  });
  console.log(
    JSON.stringify({
      gameId: next.gameId,
      again: again.gameId,
      openedAs: GameStatus[next.view?.status ?? GameStatus.UNSPECIFIED],
      seat: joined.seat,
      status: GameStatus[joined.view?.status ?? GameStatus.UNSPECIFIED],
    }),
  );
}

const [baseUrl, gameId, seatToken, seat] = process.argv.slice(2);
if (baseUrl === undefined || gameId === undefined || seatToken === undefined || seat === undefined) {
  console.error("usage: node dist/play_again_example.js BASE_URL GAME_ID SEAT_TOKEN SEAT");
  process.exit(2);
}
main(baseUrl, gameId, seatToken, Number(seat)).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
