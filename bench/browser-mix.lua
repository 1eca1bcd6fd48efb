-- bench/browser-mix.lua -- wrk script of bench/offload.sh: the
-- Accept-Encoding strings of four browsers in turn (Chrome 130+, Edge
-- 130+, Firefox 126+: gzip, deflate, br, zstd; Safari 18: gzip, deflate,
-- br), every one of them a client that accepts gzip, as the browser mix
-- of issue 32's figures.  Prints the bytes a response (headers
-- included) over the whole mix.
local mix = {
    "gzip, deflate, br, zstd",      -- Chrome
    "gzip, deflate, br, zstd",      -- Edge
    "gzip, deflate, br, zstd",      -- Firefox
    "gzip, deflate, br",            -- Safari
}
local n = #mix
local i = 0

request = function()
    i = i % n + 1
    return wrk.format("GET", "/", { ["Accept-Encoding"] = mix[i] })
end

done = function(summary, latency, requests)
    io.write(string.format("MIXBYTES %.0f\n",
                           summary.bytes / math.max(summary.requests, 1)))
end
