-- GET <prefix>/users/<random id in 1..n>, for wrk:
--   wrk -s bench/wrk/get.lua http://host:port -- <prefix> <n>
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("seed", threads)
end

function init(args)
  prefix, users = args[1], tonumber(args[2])
  math.randomseed(os.time() * 1000 + seed)
end

function request()
  return wrk.format("GET", prefix .. "/users/" .. math.random(1, users))
end
