-- wrk script for bench/faults.sh: tallies response status codes
counts = {}
local threads = {}
function setup(thread) table.insert(threads, thread) end
function response(status, headers, body)
  counts[status] = (counts[status] or 0) + 1
end
function done(summary, latency, requests)
  for _, t in ipairs(threads) do
    local c = t:get("counts")
    for k, v in pairs(c) do io.write(string.format("status %d %d\n", k, v)) end
  end
end
