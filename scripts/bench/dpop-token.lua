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
  authorization, body = args[2], args[3]
  proofs, position = {}, 0
  local line_number = 0
  for line in io.lines(file) do
    if line_number % threads == id - 1 then proofs[#proofs + 1] = line end
    line_number = line_number + 1
  end
end

function request()
  position = position + 1
  local proof = proofs[position] or "exhausted"
  return wrk.format("POST", nil, {
    ["Content-Type"] = "application/x-www-form-urlencoded",
    ["Authorization"] = authorization,
    ["DPoP"] = proof,
  }, body)
end
