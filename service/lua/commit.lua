-- Commit one step of a game atomically: request-id check, version check, snapshot, log, publish.
-- KEYS[1] game hash (fields: version, status, snapshot, listed, unlisted)   KEYS[2] log stream   KEYS[3] request-id hash
-- KEYS[4] presence hash
-- ARGV[1] version the step was computed on ("0" to create)   ARGV[2] new version
-- ARGV[3] snapshot   ARGV[4] log entry   ARGV[5] request key (a keyed hash), or ""
-- ARGV[6] update channel   ARGV[7] request fingerprint   ARGV[8] status after the step
-- ARGV[9] expiry of the game's keys: seconds, "0" for none, "" to leave it as it is
-- ARGV[10] the seat that made the step, to be noted present ("" for none)   ARGV[11] now (ms)
-- ARGV[12] "1" when the step changes what the lobby lists of the game (a seat taken, left or
-- absent, the status), else "": the game's 'listed' field then holds this version, so that the
-- lobby repair rewrites only games whose listing is behind (plain moves change no listing).
-- ARGV[13] the request ids' own expiry in seconds when it differs from ARGV[9] (a finishing step:
-- a retry comes within seconds, and a finished game takes no move a retry could apply twice),
-- else "".
-- ARGV[14] "1" on the creating commit of an unlisted table (TableSettings.unlisted), else "": the
-- game's 'unlisted' field is set, which no later step writes or deletes, so that the lobby never
-- shows, and its repair drops, an entry a replica of an earlier release wrote for the game.
-- A request key already present answers DUPLICATE with what it recorded ("<version> <fingerprint>"),
-- whatever the version: a retry is recognised before the version check.
if ARGV[5] ~= '' then
  local done = redis.call('HGET', KEYS[3], ARGV[5])
  if done then
    return {'DUPLICATE', done}
  end
end
local current = redis.call('HGET', KEYS[1], 'version') or '0'
if current ~= ARGV[1] then
  return {'CONFLICT', current, redis.call('HGET', KEYS[1], 'snapshot') or ''}
end
-- The log entry first: if it could not be appended (out of memory), nothing else is written.
redis.call('XADD', KEYS[2], ARGV[2] .. '-0', 'e', ARGV[4])
if ARGV[12] ~= '' then
  redis.call('HSET', KEYS[1], 'version', ARGV[2], 'status', ARGV[8], 'snapshot', ARGV[3], 'listed', ARGV[2])
else
  redis.call('HSET', KEYS[1], 'version', ARGV[2], 'status', ARGV[8], 'snapshot', ARGV[3])
end
if ARGV[14] == '1' then
  redis.call('HSET', KEYS[1], 'unlisted', '1')
end
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[5], ARGV[2] .. ' ' .. ARGV[7])
end
-- Presence rides on the step's own round trip (a mover is at the table), before the expiry
-- below so that the presence hash lives exactly as long as the game's other keys.
if ARGV[10] ~= '' then
  redis.call('HSET', KEYS[4], ARGV[10], ARGV[11])
end
if ARGV[9] ~= '' then
  local seconds = tonumber(ARGV[9])
  for i = 1, 4 do
    if seconds > 0 then
      redis.call('EXPIRE', KEYS[i], seconds)
    else
      redis.call('PERSIST', KEYS[i])
    end
  end
  if ARGV[13] ~= '' then
    redis.call('EXPIRE', KEYS[3], ARGV[13])
  end
end
redis.call('PUBLISH', ARGV[6], ARGV[2])
return {'OK', ARGV[2]}
