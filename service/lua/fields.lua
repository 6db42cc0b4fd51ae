-- The same fields of many hashes in one call: a game's head for each game of a lobby page, a
-- repair batch or a stream sweep. One command instead of one per game costs the replica a tenth
-- (redis-py builds and parses every command of a pipeline in Python). Only where all keys are on
-- one server: on a Cluster the games' keys are on many shards, and the store pipelines instead.
-- KEYS: the hashes   ARGV: the fields
-- Returns the fields of each hash in turn, #KEYS * #ARGV values (nil where missing).
local out = {}
local n = 0
for i = 1, #KEYS do
  local values = redis.call('HMGET', KEYS[i], unpack(ARGV))
  for j = 1, #ARGV do
    n = n + 1
    out[n] = values[j]  -- false for a missing field: kept in the array, answered as nil
  end
end
return out
