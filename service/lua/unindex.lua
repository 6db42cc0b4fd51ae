-- Drop a game from the lobby and from every filter set, in one step.
-- KEYS[1] lobby sorted set   KEYS[2] summaries hash   KEYS[3] versions hash   KEYS[4] live set
-- KEYS[5..7] the OPEN, ACTIVE, FINISHED filter sets
-- KEYS[8 + 4k] kind k's filter set   KEYS[9 + 4k .. 11 + 4k] kind k's OPEN, ACTIVE, FINISHED filter sets
-- ARGV[1] game id   ARGV[2] its lobby position when the caller knows it ("" to take it from the
-- lobby sorted set's creation time)
-- A position of another creation time than the game's entry in the lobby is a stale one (the
-- caller read it before the game was made again under its id, a namesake): only that position
-- leaves the filter sets, and the namesake's entry stays. Returns 0 then, else 1.
local position = ARGV[2]
local created = redis.call('ZSCORE', KEYS[1], ARGV[1])
if position == '' then
  if created then
    position = string.format('%012d:%s', tonumber(created), ARGV[1])
  end
elseif created and tonumber(created) ~= tonumber(string.sub(position, 1, 12)) then
  for i = 5, #KEYS do
    redis.call('ZREM', KEYS[i], position)
  end
  return 0
end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
if position ~= '' then
  for i = 5, #KEYS do
    redis.call('ZREM', KEYS[i], position)
  end
end
return 1
