-- Record a game's lobby summary unless a newer one is already there (index writes of two steps
-- may arrive in either order, and the lobby repair may write too).
-- KEYS[1] lobby sorted set   KEYS[2] summaries hash   KEYS[3] versions hash   KEYS[4] live set
-- ARGV[1] game id   ARGV[2] creation time   ARGV[3] version   ARGV[4] summary   ARGV[5] "1" when finished
local current = tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0')
if tonumber(ARGV[3]) <= current then
  return 0
end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
if ARGV[5] == '1' then
  redis.call('ZREM', KEYS[4], ARGV[1])
else
  redis.call('ZADD', KEYS[4], ARGV[2], ARGV[1])
end
return 1
