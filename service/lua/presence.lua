-- Note many seats seen, in many games, in one call: each replica writes the seats it saw over a
-- short while together (service/presence.py), not one round trip per seat. Only where all keys
-- are on one server: on a Cluster the games' keys are on many shards, and the store pipelines.
-- KEYS: the games' presence hashes   ARGV[1]: the expiry of a hash that this call makes, in seconds
-- (a hash that a game's step made has the game's own expiry, which the game's steps renew: it is
-- left as it is, so that the hash outlives no game)
-- ARGV from 2: for each key in turn, the number of seats n, then n pairs (seat, ms seen)
local at = 2
for i = 1, #KEYS do
  local n = tonumber(ARGV[at])
  at = at + 1
  for _ = 1, n do
    redis.call('HSET', KEYS[i], ARGV[at], ARGV[at + 1])
    at = at + 2
  end
  if redis.call('TTL', KEYS[i]) == -1 then
    redis.call('EXPIRE', KEYS[i], ARGV[1])
  end
end
return #KEYS
