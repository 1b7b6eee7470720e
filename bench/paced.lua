-- wrk script: the get_series request of bench/get_series.lua, each connection waiting BENCH_DELAY_MS
-- (default 1) between its calls, so that a number of connections sets the offered rate (bench/compare.sh).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_series","arguments":{"parameter":"salud","indicator":"sp_dyn_le00_in","countries":["MEX","BRA","ARG"]}}}'
local pause = tonumber(os.getenv("BENCH_DELAY_MS") or "1")
function delay()
  return pause
end
