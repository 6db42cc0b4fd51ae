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
-- same second whose id sorts after its own (the sorted set's order among equal scores). Those are
-- found by a binary search over the second's ranks, a member at a time: a second may hold
-- thousands of games, and a token may name any id of any second, so a walk over the second's
-- members (which this script did) made one page call cost Redis O(ties) (about 11 ms at 50,000).
local ties = redis.call('ZCOUNT', KEYS[1], ARGV[1], ARGV[1])
local low = redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. ARGV[1])  -- the second's first rank, oldest first
local a, b = 0, ties  -- the first tie whose id sorts after the game's is in [a, b]
while a < b do
  local mid = math.floor((a + b) / 2)
  if redis.call('ZRANGE', KEYS[1], low + mid, low + mid)[1] > game_id then
    b = mid
  else
    a = mid + 1
  end
end
local before = redis.call('ZCOUNT', KEYS[1], '(' .. ARGV[1], '+inf') + ties - a
return redis.call('ZREVRANGE', KEYS[1], before, before + wanted - 1, 'WITHSCORES')
