-- wrk script: token requests (client_credentials, client_secret_basic) that each carry a DPoP proof of their own.
-- wrk's Lua cannot sign, so `haapi-bench proofs` makes the proofs beforehand; each wrk thread takes every
-- N-th line of the file, so no proof is sent twice. A request beyond the supply sends a proof that cannot
-- verify and shows up as a non-2xx response, which scripts/bench.sh counts against the run.
-- Arguments (after --): PROOFS_FILE AUTHORIZATION_HEADER FORM_BODY THREADS

local next_id = 1

function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
end

function init(args)
  local file, threads = args[1], tonumber(args[4])
  local authorization, body = args[2], args[3]
  -- Whole requests are formatted here, before the clock starts, so that during the run wrk only writes
  -- a ready buffer, as it does for a plain GET: the load generator costs the same per request in every phase.
  requests, position = {}, 0
  local line_number = 0
  for line in io.lines(file) do
    if line_number % threads == id - 1 then
      requests[#requests + 1] = wrk.format("POST", nil, {
        ["Content-Type"] = "application/x-www-form-urlencoded",
        ["Authorization"] = authorization,
        ["DPoP"] = line,
      }, body)
    end
    line_number = line_number + 1
  end
  exhausted = wrk.format("POST", nil, { ["DPoP"] = "exhausted" }, body)
end

function request()
  position = position + 1
  return requests[position] or exhausted
end
