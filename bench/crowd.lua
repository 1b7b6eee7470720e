-- wrk script: POST the JSON-RPC request in the environment variable BODY, each request from a client
-- address of its own (X-Real-IP drawn from 16.7 million IPv4 addresses, honoured by a server that trusts
-- 127.0.0.1 as its proxy): a crowd of new clients, for bench/faults.sh's limiter part.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = os.getenv("BODY")

function setup(thread)
  thread:set("seed", math.random(1, 1000000))
end

function init(args)
  math.randomseed(seed)
end

-- wrk.format takes the request's whole header table, so the content type goes in it too.
function request()
  local address = string.format("10.%d.%d.%d", math.random(0, 255), math.random(0, 255), math.random(0, 255))
  return wrk.format(nil, nil, { ["Content-Type"] = "application/json", ["X-Real-IP"] = address })
end
