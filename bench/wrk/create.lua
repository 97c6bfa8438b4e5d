-- POST <prefix>/posts with a new post by a random author in 1..n, for wrk:
--   wrk -s bench/wrk/create.lua http://host:port -- <prefix> <n>
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("seed", threads)
end

function init(args)
  prefix, users = args[1], tonumber(args[2])
  math.randomseed(os.time() * 1000 + seed)
  sent = 0
  -- wrk.format sends only the headers it is given: the command line's
  -- (-H Authorization) must be among them.
  headers = { ["Content-Type"] = "application/json" }
  for name, value in pairs(wrk.headers) do
    headers[name] = value
  end
end

function request()
  sent = sent + 1
  local body = '{"title":"Bench post ' .. seed .. '-' .. sent .. '","views":' .. (sent % 1000) ..
    ',"author_id":' .. math.random(1, users) .. '}'
  return wrk.format("POST", prefix .. "/posts", headers, body)
end
