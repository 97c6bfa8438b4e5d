-- GET <prefix><path><random id in 1..n>, for wrk; path is /users/ unless
-- given (pREST's is /users?id=):
--   wrk -s bench/wrk/get.lua http://host:port -- <prefix> <n> [path]
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("seed", threads)
end

function init(args)
  prefix, users, path = args[1], tonumber(args[2]), args[3] or "/users/"
  math.randomseed(os.time() * 1000 + seed)
end

function request()
  return wrk.format("GET", prefix .. path .. math.random(1, users))
end
