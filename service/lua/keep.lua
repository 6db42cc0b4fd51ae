-- Give the keys of games that have no expiry one: a release before any expiry (0.1.0) left its
-- games' keys for ever, and such a game that takes no more steps (finished, or left open or in
-- play by its players) would never get one from a step. Games that have one are left as they are.
-- KEYS: four per game: its hash, its log, its request ids, its presence
-- ARGV: each game's expiry in seconds, in the order of its keys
-- Returns how many games were given an expiry.
local given = 0
for g = 1, #ARGV do
  local first = 4 * (g - 1) + 1
  if redis.call('TTL', KEYS[first]) == -1 then
    for i = first, first + 3 do
      redis.call('EXPIRE', KEYS[i], ARGV[g])
    end
    given = given + 1
  end
end
return given
