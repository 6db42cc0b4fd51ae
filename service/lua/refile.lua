-- File lobby entries under their kind and status as their summaries say (entries written before
-- the filter sets existed, or by a replica that did not keep them), unless a newer summary has
-- been written since it was read: that write filed the game itself.
-- KEYS[1] versions hash   KEYS[2..4] the OPEN, ACTIVE, FINISHED filter sets
-- KEYS[5 + 4k] kind k's filter set   KEYS[6 + 4k .. 8 + 4k] kind k's OPEN, ACTIVE, FINISHED filter sets
-- ARGV: five per entry: game id, the summary's version, lobby position, kind k, status (1-3)
-- Returns how many memberships it changed.
local changed = 0
for i = 1, #ARGV, 5 do
  local id, version, position = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local base, status = 5 + 4 * tonumber(ARGV[i + 3]), tonumber(ARGV[i + 4])
  if redis.call('HGET', KEYS[1], id) == version then
    changed = changed + redis.call('ZADD', KEYS[base], 0, position)
    for slot = 1, 3 do
      if slot == status then
        changed = changed + redis.call('ZADD', KEYS[1 + slot], 0, position)
        changed = changed + redis.call('ZADD', KEYS[base + slot], 0, position)
      else
        changed = changed + redis.call('ZREM', KEYS[1 + slot], position)
        changed = changed + redis.call('ZREM', KEYS[base + slot], position)
      end
    end
  end
end
return changed
