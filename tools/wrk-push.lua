-- wrk script for tools/load: each request pushes a batch of new events (fresh ids, so the
-- server stores every one), and the summary prints one line of figures for the caller.
-- Settings come from the environment: CHRONICLE_TOKEN, CHRONICLE_BATCH (events per push).

local token = os.getenv("CHRONICLE_TOKEN")
local batch = tonumber(os.getenv("CHRONICLE_BATCH") or "100")
local counter = 0
local seed = 0

function setup(thread)
  seed = seed + 1
  thread:set("thread_seed", seed)
end

function init(args)
  math.randomseed(os.time() * 1000 + (thread_seed or 0))
  prefix = string.format("%08x", math.random(0, 0x7fffffff))
end

-- A UUIDv7-shaped id unique to this thread: its random prefix and a counter.
local function id()
  counter = counter + 1
  return string.format("%s-%04x-7%03x-8%03x-%012x", prefix, math.random(0, 0xffff), math.random(0, 0xfff),
    math.random(0, 0xfff), counter)
end

request = function()
  local events = {}
  for n = 1, batch do
    events[n] = string.format(
      '{"id":"%s","stream":"todo-%s-%d","version":1,"type":"TodoCreated","timestamp":"2026-11-24T06:00:00.000Z","origin":"wrk","data":{"title":"load","deadline":"2026-12-01"}}',
      id(), prefix, counter)
  end
  local body = '{"device":"wrk","events":[' .. table.concat(events, ",") .. ']}'
  return wrk.format("POST", "/v1/events", {
    ["Authorization"] = "Bearer " .. token,
    ["Content-Type"] = "application/json",
  }, body)
end

done = function(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local ok = summary.requests - summary.errors.status
  io.write(string.format(
    "figures requests=%d non2xx=%d socketErrors=%d eventsPerSecond=%.0f p50ms=%.1f p99ms=%.1f maxms=%.1f\n",
    summary.requests, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    ok * batch / seconds, latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
