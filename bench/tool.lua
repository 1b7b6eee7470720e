-- wrk script: POST the JSON-RPC request in the environment variable BODY (set by bench/tools.sh).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = os.getenv("BODY")
