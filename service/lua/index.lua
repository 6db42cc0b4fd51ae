-- Record a game's lobby summary unless a newer one is already there (index writes of two steps
-- may arrive in either order, and the lobby repair may write too), and file the game under its
-- kind, its status and both, where a filtered ListGames reads only the games that match.
-- KEYS[1] lobby sorted set   KEYS[2] summaries hash   KEYS[3] versions hash   KEYS[4] live set
-- KEYS[5] the kind's filter set   KEYS[6..8] the OPEN, ACTIVE, FINISHED filter sets
-- KEYS[9..11] the kind's OPEN, ACTIVE, FINISHED filter sets
-- KEYS[12] the set of kinds filed (the lobby repair's sweep reads it to find every kind's sets)
-- ARGV[1] game id   ARGV[2] creation time   ARGV[3] version   ARGV[4] summary   ARGV[5] "1" when finished
-- ARGV[6] the game's lobby position ("<creation time, 12 digits>:<game id>")   ARGV[7] its status (1-3)
-- ARGV[8] "1" for the summary of a game its commit has just made: an entry of the same creation
-- time is left as it is (the same summary, or a later step's), and one of another creation time
-- (another attempt's to make the game, or its namesake's) is replaced whatever its version, in
-- this one step: the game is never out of the lobby in between. Absent from earlier releases.
-- ARGV[9] the game's kind (absent from earlier releases, whose writes the repair's refile and
-- its search of the keyspace find).
local before = redis.call('ZSCORE', KEYS[1], ARGV[1])
local current = tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0')
if ARGV[8] == '1' then
  if before and tonumber(before) == tonumber(ARGV[2]) then
    return 0
  end
elseif tonumber(ARGV[3]) <= current then
  return 0
end
-- A game indexed before with another creation time (two attempts to create one game id, a retry
-- or a PlayAgain, index it before their commits, each with its own clock, and only one commits):
-- its position under that time leaves every filter set, so that the game is filed once.
if before and tonumber(before) ~= tonumber(ARGV[2]) then
  local old = string.format('%012d', tonumber(before)) .. ':' .. ARGV[1]
  for i = 5, 11 do
    redis.call('ZREM', KEYS[i], old)
  end
end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
if ARGV[5] == '1' then
  redis.call('ZREM', KEYS[4], ARGV[1])
else
  redis.call('ZADD', KEYS[4], ARGV[2], ARGV[1])
end
-- The filter sets hold positions at score 0, so they are ordered by position: creation time,
-- then game id, the very order of the lobby sorted set (which breaks ties of a score by member).
local status = tonumber(ARGV[7])
redis.call('SADD', KEYS[12], ARGV[9])
redis.call('ZADD', KEYS[5], 0, ARGV[6])
for slot = 1, 3 do
  if slot == status then
    redis.call('ZADD', KEYS[5 + slot], 0, ARGV[6])
    redis.call('ZADD', KEYS[8 + slot], 0, ARGV[6])
  else
    redis.call('ZREM', KEYS[5 + slot], ARGV[6])
    redis.call('ZREM', KEYS[8 + slot], ARGV[6])
  end
end
return 1
