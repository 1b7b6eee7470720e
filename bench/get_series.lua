-- wrk script: POST the get_series request of bench/server.sh (MEX, BRA, ARG, all years).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_series","arguments":{"parameter":"salud","indicator":"sp_dyn_le00_in","countries":["MEX","BRA","ARG"]}}}'
