-- Note many seats seen, in many games, in one call: each replica writes the seats it saw over a
-- short while together (service/presence.py), not one round trip per seat. Only where all keys
-- are on one server: on a Cluster the games' keys are on many shards, and the store pipelines.
-- KEYS: for each game in turn, its presence hash, then its game hash
-- ARGV[1]: the expiry, in seconds, of a hash that this call makes for a game without one of its own
-- ARGV from 2: for each game in turn, the number of seats n, then n pairs (seat, ms seen)
-- A game that no longer exists (expired, removed for room, or never made) gets no hash: a seat
-- seen just before its game went must not leave one behind. A hash that a game's step made has
-- the game's own expiry, which the game's steps renew: it is left as it is; one made here takes
-- what is left of the game's, so that the hash outlives no game.
local at = 2
for i = 1, #KEYS, 2 do
  local n = tonumber(ARGV[at])
  at = at + 1
  if redis.call('EXISTS', KEYS[i + 1]) == 1 then
    for _ = 1, n do
      redis.call('HSET', KEYS[i], ARGV[at], ARGV[at + 1])
      at = at + 2
    end
    if redis.call('TTL', KEYS[i]) == -1 then
      local left = redis.call('PTTL', KEYS[i + 1])
      if left > 0 then
        redis.call('PEXPIRE', KEYS[i], left)
      else
        redis.call('EXPIRE', KEYS[i], ARGV[1])
      end
    end
  else
    at = at + 2 * n
  end
end
return #KEYS / 2
