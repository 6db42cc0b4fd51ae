// The table calls, typed: a game with a clock that allows takeover, a server-side bot in a seat,
// a player who leaves, returns, leaves again and whose seat a newcomer takes over.
//
//   npm ci && npm run build && node dist/table_example.js http://127.0.0.1:8080

import { GameStatus, type HistoryEntry, SeatChanged_Change } from "./gen/hustings/v1/game_pb.js";
import { GameService } from "./gen/hustings/v1/game_service_pb.js";
import { HustingsRest } from "./rest.js";

const MAX_HISTORY_PAGES = 100; // a bound on the walk; a table's history takes one page

async function main(baseUrl: string): Promise<void> {
  const api = new HustingsRest(baseUrl);
  const created = await api.createGame(
    "stimmvieh",
    { players: 3, game: { case: "stimmvieh", value: {} } },
    { decisionSeconds: 600, allowTakeover: true },
  );
  const gameId = created.gameId;
  const ada = await api.call(GameService.method.joinGame, { gameId, displayName: "Ada" });
  const bot = await api.addBot(gameId);
  await api.call(GameService.method.joinGame, { gameId, displayName: "Bo" });
  const left = await api.leaveGame(gameId, ada.seatToken);
  const back = await api.returnToGame(gameId, ada.seatToken);
  await api.leaveGame(gameId, ada.seatToken);
  const cy = await api.takeOverSeat(gameId, ada.seat, "Cy");
  const view = await api.view(gameId, cy.seatToken);
  // GetHistory answers in pages by version: go on from each page's nextAfterVersion until it is 0.
  const entries: HistoryEntry[] = [];
  for (let afterVersion = 0n, pages = 0; pages < MAX_HISTORY_PAGES; pages++) {
    const page = await api.call(GameService.method.getHistory, { gameId, afterVersion });
    entries.push(...page.entries);
    if (page.nextAfterVersion === 0n) break;
    afterVersion = page.nextAfterVersion;
  }
  const changes = entries.flatMap((entry) =>
    entry.events.flatMap((event) => (event.body.case === "seatChanged" ? [SeatChanged_Change[event.body.value.change]] : [])),
  );
  console.log(
    JSON.stringify({
      gameId,
      table: { decisionSeconds: created.view?.table?.decisionSeconds, allowTakeover: created.view?.table?.allowTakeover },
      botSeat: bot.seat,
      active: view.status === GameStatus.ACTIVE,
      leftAbsent: left.view?.seats[ada.seat]?.absent,
      backAbsent: back.view?.seats[ada.seat]?.absent,
      takenOver: { seat: cy.seat, name: view.seats[cy.seat]?.displayName, mine: view.seat === cy.seat },
      changes,
    }),
  );
}

const baseUrl = process.argv[2] ?? process.env["HUSTINGS_URL"] ?? "http://127.0.0.1:8080";
main(baseUrl).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
