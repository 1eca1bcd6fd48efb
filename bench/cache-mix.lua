-- bench/cache-mix.lua -- wrk script of bench/cache.sh: one page, the
-- Accept-Encoding strings of six clients in turn (Chrome 130+, Firefox
-- 126+, Safari 18, curl without --compressed, Python requests, Go's
-- net/http), so a cache keyed on the raw string sees six variants.
local mix = {
    "gzip, deflate, br, zstd",      -- Chrome
    "gzip, deflate, br, zstd",      -- Firefox
    "gzip, deflate, br",            -- Safari
    nil,                            -- curl: no Accept-Encoding
    "gzip, deflate",                -- Python requests
    "gzip",                         -- Go
}
local n = 6
local i = 0
local path = os.getenv("PIB_CACHE_PATH") or "/page.html"

request = function()
    i = i % n + 1
    local ae = mix[i]
    if ae == nil then
        return wrk.format("GET", path)
    end
    return wrk.format("GET", path, { ["Accept-Encoding"] = ae })
end

-- bytes per page over the whole mix, for the table
done = function(summary, latency, requests)
    io.write(string.format("MIXBYTES %.0f\n",
                           summary.bytes / math.max(summary.requests, 1)))
end
