import Crypto
import Foundation
import HaapiDriver
import HaapiModel
import HaapiServer

/// Makes the proofs the checks send, good and bad, for one key and endpoint.
struct ProofForge: Sendable {
    let key: SoftwareP256SigningKey
    let htu: String

    func claims(method: String = "POST", url: String? = nil, iat: Date = Date(), nonce: String?) -> JSONObject {
        var claims: JSONObject = [
            "jti": .string(SecureRandom.token(byteCount: 16)), "htm": .string(method), "htu": .string(url ?? htu),
            "iat": .number(JSONNumber(Int(iat.timeIntervalSince1970))),
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        return claims
    }

    func signed(_ claims: JSONObject, header: JSONObject? = nil) throws -> String {
        try JWS.sign(
            claims: claims, header: header ?? ["typ": "dpop+jwt", "jwk": try key.publicJWK.publicKey().json],
            signer: key)
    }

    /// The header and claims as a JWS with `alg` as given and `signature` appended as is.
    func unsigned(header: JSONValue, nonce: String?) -> String {
        Base64URL.encode(Data(header.serialized().utf8)) + "."
            + Base64URL.encode(Data(JSONValue.object(claims(nonce: nonce)).serialized().utf8))
    }
}

/// How the checks obtain a token at the token endpoint without a user: a confidential client's
/// `client_credentials`, or a HAAPI client's attestation (the software attester: the dev server's policy,
/// refused by servers that require real devices, which is then reported).
enum CheckGrant: Sendable {
    case clientSecret(clientID: String, secret: String, scope: String?)
    case attestation(clientID: String)

    var clientID: String {
        switch self {
        case .clientSecret(let id, _, _), .attestation(let id): id
        }
    }
}

/// The DPoP group (RFC 9449) at the token endpoint: a fresh proof is accepted and the token bound to its
/// key; a replayed proof, a wrong `htm` or `htu`, an `iat` ten minutes off, `alg: none`, an HMAC proof and a
/// proof whose `jwk` holds a private key are refused; nonces, when demanded, come with `DPoP-Nonce`.
struct DPoPChecks {
    let token: URL
    let grant: CheckGrant
    let http: CheckHTTP
    /// Where an opaque token's binding can be read (RFC 7662), with the grant's secret.
    var introspection: URL? = nil
    let key = SoftwareP256SigningKey()

    /// The token the fresh proof obtained, for the hygiene checks that need no login.
    private(set) var fresh: String?

    /// The `cnf.jkt` introspection gives `token`, when the grant has a secret to introspect with.
    private func introspectedThumbprint(_ token: String) async throws -> String? {
        guard case .clientSecret(let id, let secret, _) = grant, let introspection else { return nil }
        let request = HTTPRequest(
            method: "POST", url: introspection,
            headers: [
                ("Content-Type", MimeTypes.formURLEncoded), ("Accept", "application/json"),
                CheckClient.basic(id: id, secret: secret),
            ], body: Data(FormURLEncoding.encode([("token", token)]).utf8))
        let response = try await http.send(request)
        return (try? JSONParser().parse(response.body))?["cnf"]?["jkt"]?.stringValue
    }

    /// One token request with `proof` in its `DPoP` header (or none), for a fresh CAT when the grant needs one.
    private func tokenRequest(
        proof: (String?) throws -> String?, nonce: String?
    ) async throws
        -> (HTTPRequest, HTTPResponse)?
    {
        var form: [(String, String)] = [("grant_type", "client_credentials")]
        var headers: [(name: String, value: String)] = [("Accept", "application/json")]
        switch grant {
        case .clientSecret(let id, let secret, let scope):
            if let scope { form.append(("scope", scope)) }
            headers.append(CheckClient.basic(id: id, secret: secret))
        case .attestation(let id):
            guard let cat = try await clientAttestationToken(id) else { return nil }
            form += [
                ("client_id", id), ("scope", "urn:se:curity:scopes:haapi"),
                ("client_assertion_type", "urn:se:curity:attestation:client"), ("client_assertion", cat),
            ]
        }
        headers.append(("Content-Type", MimeTypes.formURLEncoded))
        if let value = try proof(nonce) { headers.append(("DPoP", value)) }
        let request = HTTPRequest(
            method: "POST", url: token, headers: headers, body: Data(FormURLEncoding.encode(form).utf8))
        return (request, try await http.send(request))
    }

    /// A CAT for `clientID` through the software attestation; nil when the server has no such endpoint.
    private func clientAttestationToken(_ clientID: String) async throws -> String? {
        let catURL = token.appendingPathComponent("cat")
        var components = URLComponents(url: catURL, resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "client_id", value: clientID)]
        guard let challengeURL = components?.url else { return nil }
        let challengeResponse = try await http.send(
            HTTPRequest(method: "GET", url: challengeURL, headers: [("Accept", "application/json")]))
        guard challengeResponse.statusCode == 200,
            let challenge = (try? JSONParser().parse(challengeResponse.body))?["challenge"]?.stringValue
        else { return nil }
        let attestation = try await SoftwareAttester().attest(challenge: challenge, clientId: clientID, key: key)
        let response = try await http.send(
            HTTPRequest(
                method: "POST", url: catURL, headers: [("Content-Type", MimeTypes.formURLEncoded)],
                body: Data(
                    FormURLEncoding.encode([
                        ("client_id", clientID), ("challenge", challenge), ("challenge_response", attestation),
                    ]).utf8)))
        return (try? JSONParser().parse(response.body))?["cat"]?.stringValue
    }

    mutating func run(_ report: inout [CheckFinding]) async throws {
        func add(
            _ id: String, _ severity: CheckFinding.Severity, _ title: String, reference: String,
            _ exchange: (HTTPRequest, HTTPResponse)? = nil, note: String? = nil, fix: String? = nil
        ) {
            report.append(
                CheckFinding(
                    id: id, group: .dpop, severity: severity, title: title,
                    sent: exchange.map { CheckHTTP.line($0.0, note) }, received: exchange.map { CheckHTTP.line($0.1) },
                    reference: reference, fix: fix))
        }
        let forge = ProofForge(key: key, htu: Dpop.htu(for: token))
        // A fresh proof, without a nonce: accepted, or refused with use_dpop_nonce and a nonce to use.
        var acceptedProof: String?
        let first = try await tokenRequest(
            proof: { _ in
                acceptedProof = try forge.signed(forge.claims(nonce: nil))
                return acceptedProof
            }, nonce: nil)
        guard var (request, response) = first else {
            add(
                "dpop.no-grant", .info,
                "No token could be requested without a user: no client secret was given and the server has no attestation endpoint for \(grant.clientID)",
                reference: "RFC 9449 §5",
                fix: "run haapi check with --client-id and --client-secret of a confidential client")
            return
        }
        var nonce: String?
        let firstError = (try? JSONParser().parse(response.body))?["error"]?.stringValue
        guard response.statusCode == 200 || firstError != nil else {
            add(
                "dpop.not-oauth", .error, "The token endpoint does not answer as OAuth (no token, no JSON error)",
                reference: "RFC 6749 §5.2", (request, response), note: "fresh proof",
                fix: "check --server: the token endpoint is \(token.absoluteString)")
            return
        }
        if response.statusCode == 400, firstError == "use_dpop_nonce" {
            guard let offered = response.header("DPoP-Nonce") else {
                add(
                    "dpop.nonce-header-missing", .error, "use_dpop_nonce without a DPoP-Nonce header",
                    reference: "RFC 9449 §8", (request, response), note: "proof without nonce",
                    fix: "send the nonce in DPoP-Nonce with every use_dpop_nonce error")
                return
            }
            add(
                "dpop.nonce-missing", .pass, "The server demands a nonce and sends one in DPoP-Nonce",
                reference: "RFC 9449 §8",
                (request, response), note: "proof without nonce")
            nonce = offered
            guard
                let second = try await tokenRequest(
                    proof: { nonce in
                        acceptedProof = try forge.signed(forge.claims(nonce: nonce))
                        return acceptedProof
                    }, nonce: nonce)
            else { return }
            (request, response) = second
        } else if response.statusCode == 200 {
            add(
                "dpop.nonce-missing", .warning, "Proofs are accepted without a server nonce",
                reference: "RFC 9449 §8, §11.1", (request, response), note: "proof without nonce",
                fix: "require DPoP nonces, so a proof made in advance cannot be used later")
        }
        let tokens = (try? JSONParser().parse(response.body))?.objectValue
        guard response.statusCode == 200, let accessToken = tokens?["access_token"]?.stringValue else {
            add(
                "dpop.fresh-refused", .error, "A fresh, correct proof was refused", reference: "RFC 9449 §4.3",
                (request, response), note: "fresh proof",
                fix: "check the client's DPoP settings; a correct proof must be accepted")
            return
        }
        fresh = accessToken
        await http.obtained(accessToken)
        nonce = response.header("DPoP-Nonce") ?? nonce
        add(
            "dpop.fresh-accepted", .pass, "A fresh proof is accepted", reference: "RFC 9449 §4.3", (request, response),
            note: "fresh proof")
        if tokens?["token_type"]?.stringValue?.lowercased() != "dpop" {
            add(
                "dpop.token-not-bound", .error,
                "The token type is \(tokens?["token_type"]?.stringValue ?? "missing"), not DPoP",
                reference: "RFC 9449 §5", (request, response),
                fix: "issue DPoP-bound tokens (token_type DPoP) when the request carries a proof")
        } else if let claims = try? CompactJWS(parsing: accessToken).payloadObject(),
            let jkt = claims["cnf"]?["jkt"]?.stringValue
        {
            if jkt == key.thumbprint {
                add(
                    "dpop.token-not-bound", .pass, "The token's cnf.jkt is the proof key's thumbprint",
                    reference: "RFC 9449 §6")
            } else {
                add(
                    "dpop.cnf-mismatch", .error, "The token's cnf.jkt is not the proof key's thumbprint",
                    reference: "RFC 9449 §6", fix: "bind the token to the key of the proof that came with the request")
            }
        } else if let jkt = try await introspectedThumbprint(accessToken) {
            // RFC 9449 §6.2: an opaque token's binding is in its introspection answer.
            if jkt == key.thumbprint {
                add(
                    "dpop.token-not-bound", .pass, "Introspection gives the token the proof key's thumbprint (cnf.jkt)",
                    reference: "RFC 9449 §6.2")
            } else {
                add(
                    "dpop.cnf-mismatch", .error, "Introspection gives the token another key's thumbprint",
                    reference: "RFC 9449 §6.2",
                    fix: "bind the token to the key of the proof that came with the request")
            }
        } else {
            add(
                "dpop.binding-opaque", .info,
                "token_type is DPoP; the token is opaque and introspection (which needs the client's secret) did not show its cnf.jkt",
                reference: "RFC 9449 §6")
        }

        // Each of these must be refused. A refused proof costs the client nothing, so a fresh grant is not
        // always needed; the attestation grant makes a fresh CAT each time anyway.
        let replayed = acceptedProof
        let attacks: [(id: String, note: String, reference: String, fix: String, proof: (String?) throws -> String?)] =
            [
                (
                    Rule.dpopReplay.id, "the jti of an accepted proof (a replay)", "RFC 9449 §11.1",
                    "keep the jti of accepted proofs for their iat window and refuse repeats",
                    { _ in replayed }
                ),
                (
                    Rule.dpopHtmMismatch.id, "htm GET", "RFC 9449 §4.3 (6)", "compare htm with the request's method",
                    { try forge.signed(forge.claims(method: "GET", nonce: $0)) }
                ),
                (
                    Rule.dpopHtuMismatch.id, "htu of another endpoint", "RFC 9449 §4.3 (7)",
                    "compare htu with the request's URL, without query and fragment",
                    { try forge.signed(forge.claims(url: forge.htu + "/other", nonce: $0)) }
                ),
                (
                    Rule.dpopIatWindow.id, "iat ten minutes ago", "RFC 9449 §4.3 (9), §11.1",
                    "accept iat only within a short window around the server's time",
                    { try forge.signed(forge.claims(iat: Date() - 600, nonce: $0)) }
                ),
                (
                    Rule.dpopAlg.id, "alg none, no signature", "RFC 9449 §4.3 (5)",
                    "accept only asymmetric signature algorithms for proofs",
                    { nonce in
                        let header: JSONValue = [
                            "typ": "dpop+jwt", "alg": "none", "jwk": try forge.key.publicJWK.publicKey().json,
                        ]
                        return forge.unsigned(header: header, nonce: nonce) + "."
                    }
                ),
                (
                    Rule.dpopAlg.id, "alg HS256 with a shared key", "RFC 9449 §4.3 (5)",
                    "refuse symmetric algorithms: a proof must be verifiable by its jwk alone",
                    { nonce in
                        let secret = SymmetricKey(size: .bits256)
                        let header: JSONValue = [
                            "typ": "dpop+jwt", "alg": "HS256",
                            "jwk": ["kty": "oct", "k": .string(secret.withUnsafeBytes { Base64URL.encode(Data($0)) })],
                        ]
                        let input = forge.unsigned(header: header, nonce: nonce)
                        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: secret)
                        return input + "." + Base64URL.encode(Data(mac))
                    }
                ),
                (
                    Rule.dpopJWK.id, "jwk with the private key d", "RFC 9449 §4.3 (8)",
                    "refuse proofs whose jwk carries private members",
                    {
                        try forge.signed(
                            forge.claims(nonce: $0), header: ["typ": "dpop+jwt", "jwk": forge.key.privateJWK.json])
                    }
                ),
            ]
        let required = nonce != nil
        var seen = Set([nonce].compactMap { $0 })
        let started = Date()
        for attack in attacks + (required ? [Self.inventedNonce(forge)] : []) {
            guard let exchange = try await tokenRequest(proof: attack.proof, nonce: nonce) else { continue }
            if let fresh = exchange.1.header("DPoP-Nonce") {
                nonce = fresh
                seen.insert(fresh)
            }
            if exchange.1.statusCode == 200 {
                if let token = (try? JSONParser().parse(exchange.1.body))?["access_token"]?.stringValue {
                    await http.obtained(token)
                }
                add(
                    attack.id, .error, "Accepted: a proof with \(attack.note)",
                    reference: attack.reference, exchange, note: attack.note, fix: attack.fix)
            } else {
                add(
                    attack.id, .pass, "Refused: a proof with \(attack.note)",
                    reference: attack.reference,
                    exchange, note: attack.note)
            }
        }
        guard required else { return }
        // A rotation shows only when the run outlasts the server's period; one unchanged nonce is not a fault.
        let seconds = Int(Date().timeIntervalSince(started).rounded())
        if seen.count > 1 {
            add(
                "dpop.nonce-rotated", .pass, "The server's nonce changed during the run (\(seen.count) values)",
                reference: "RFC 9449 §8.2")
        } else {
            add(
                "dpop.nonce-rotation-unseen", .info,
                "The nonce stayed the same during the run (\(seconds) s): a rotation period longer than the run cannot be seen",
                reference: "RFC 9449 §8.2")
        }
    }

    /// A nonce the server never issued must be refused with `use_dpop_nonce` (and a real one offered):
    /// otherwise the nonce is decoration and a proof made in advance still works.
    private static func inventedNonce(
        _ forge: ProofForge
    ) -> (id: String, note: String, reference: String, fix: String, proof: (String?) throws -> String?) {
        (
            Rule.dpopNonceUnknown.id, "a nonce the server never issued", "RFC 9449 §8, §11.1",
            "accept only nonces the server issued, and only while they are current",
            { _ in try forge.signed(forge.claims(nonce: "haapi-check-" + SecureRandom.token(byteCount: 12))) }
        )
    }
}
