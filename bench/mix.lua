-- wrk script: every request of bench/tools.jsonl in turn (one tools/call each, ids counting up), for
-- the soak and the reload runs of bench/faults.sh.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local calls = {}
for line in io.lines("bench/tools.jsonl") do
  calls[#calls + 1] = line
end
local next_call = 0
function request()
  next_call = next_call + 1
  local body = '{"jsonrpc":"2.0","id":' .. next_call .. ',"method":"tools/call","params":' .. calls[(next_call % #calls) + 1] .. '}'
  return wrk.format(nil, nil, nil, body)
end
