-- The lobby's entries newest first, from just after a lobby position (a creation time and a game
-- id): a place that games created or dropped meanwhile do not move, as an offset from the newest
-- entry would (a page token that was one repeated a game, or skipped one, when the lobby changed
-- between two pages).
-- KEYS[1] the lobby sorted set (member the game id, score its creation time in seconds)
-- ARGV[1] the position's creation time   ARGV[2] its game id   ARGV[3] entries wanted
-- Returns up to ARGV[3] entries as game id, score, game id, score, ...
local created, game_id, wanted = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local rank = redis.call('ZREVRANK', KEYS[1], game_id)
if rank and tonumber(redis.call('ZSCORE', KEYS[1], game_id)) == created then
  return redis.call('ZREVRANGE', KEYS[1], rank + 1, rank + wanted, 'WITHSCORES')
end
-- The game left the lobby: its place is after every newer entry, and after the entries of the
-- same second whose id sorts after its own (the sorted set's order among equal scores).
local before = redis.call('ZCOUNT', KEYS[1], '(' .. ARGV[1], '+inf')
for _, tied in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[1])) do
  if tied > game_id then
    before = before + 1
  end
end
return redis.call('ZREVRANGE', KEYS[1], before, before + wanted - 1, 'WITHSCORES')
