import Crypto
import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import HaapiRules

/// Makes the proofs the checks send, good and bad, for one key and endpoint.
package struct ProofForge: Sendable {
    package let key: SoftwareP256SigningKey
    package let htu: String

    package func claims(method: String = "POST", url: String? = nil, iat: Date = Date(), nonce: String?) -> JSONObject {
        var claims: JSONObject = [
            "jti": .string(SecureRandom.token(byteCount: 16)), "htm": .string(method), "htu": .string(url ?? htu),
            "iat": .number(JSONNumber(Int(iat.timeIntervalSince1970))),
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        return claims
    }

    package func signed(
        _ claims: JSONObject, header: JSONObject? = nil, signer: SoftwareP256SigningKey? = nil
    ) throws
        -> String
    {
        try JWS.sign(
            claims: claims,
            header: header ?? ["typ": .string(Dpop.proofType), "jwk": try key.publicJWK.publicKey().json],
            signer: signer ?? key)
    }

    /// The header and claims as a JWS with `alg` as given and `signature` appended as is.
    package func unsigned(header: JSONValue, nonce: String?) -> String {
        Base64URL.encode(Data(header.serialized().utf8)) + "."
            + Base64URL.encode(Data(JSONValue.object(claims(nonce: nonce)).serialized().utf8))
    }
}

/// How the checks obtain a token at the token endpoint without a user: a confidential client's
/// `client_credentials`, or a HAAPI client's attestation (the software attester: the dev server's policy,
/// refused by servers that require real devices, which is then reported).
package enum CheckGrant: Sendable {
    case clientSecret(clientID: String, secret: String, scope: String?)
    case attestation(clientID: String)

    package var clientID: String {
        switch self {
        case .clientSecret(let id, _, _), .attestation(let id): id
        }
    }
}

/// The DPoP group (RFC 9449) at the token endpoint: a fresh proof is accepted and the token bound to its
/// key; a replayed proof, a wrong `htm` or `htu`, an `iat` ten minutes off, `alg: none`, an HMAC proof and a
/// proof whose `jwk` holds a private key are refused; nonces, when demanded, come with `DPoP-Nonce`.
package struct DPoPChecks {
    package init(token: URL, grant: CheckGrant, http: CheckHTTP, introspection: URL? = nil) {
        self.token = token
        self.grant = grant
        self.http = http
        self.introspection = introspection
    }

    package let token: URL
    package let grant: CheckGrant
    package let http: CheckHTTP
    /// Where an opaque token's binding can be read (RFC 7662), with the grant's secret.
    package var introspection: URL? = nil
    package let key = SoftwareP256SigningKey()

    /// The token the fresh proof obtained, for the hygiene checks that need no login.
    package private(set) var fresh: String?

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

    /// One request that must be refused: the rule it breaks, what it is in words ("a replayed proof"), and its
    /// proof for the nonce of the moment.
    package struct Attack {
        let rule: Rule
        let what: String
        let proof: (String?) throws -> String?
    }

    /// Whether the token endpoint refused the client itself (its secret, assertion or attestation token),
    /// which says nothing about DPoP: 401, `invalid_client`, or words about the client's credentials.
    package static func refusesClient(_ response: HTTPResponse) -> Bool {
        let body = (try? JSONParser().parse(response.body))?.objectValue
        let error = body?["error"]?.stringValue
        if error == "invalid_dpop_proof" || error == "use_dpop_nonce" { return false }
        if response.statusCode == 401 || error == "invalid_client" || error == "unauthorized_client" { return true }
        let words = (body?["error_description"]?.stringValue ?? "").lowercased()
        return ["credential", "client auth", "client secret", "authorization failed"].contains { words.contains($0) }
    }

    package mutating func run(_ report: inout [CheckFinding]) async throws {
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
                fix: "run haapi check with --client-id and --client-secret-file of a confidential client")
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
                    "dpop.nonce-header-missing", .error, "use_dpop_nonce came without a DPoP-Nonce header",
                    reference: "RFC 9449 §8", (request, response), note: "proof without nonce",
                    fix: "send the nonce in DPoP-Nonce with every use_dpop_nonce error")
                return
            }
            add(
                Rule.dpopNonceMissing.id, .pass, "A proof without a nonce was refused, and a nonce sent in DPoP-Nonce",
                reference: "", (request, response), note: "proof without nonce")
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
                Rule.dpopNonceMissing.id, .warning, "A proof without a server nonce was accepted", reference: "",
                (request, response), note: "proof without nonce")
        }
        // No DPoP verdict from requests that never passed client authentication.
        if response.statusCode != 200, Self.refusesClient(response) {
            add(
                Rule.clientAuthentication.id, .error,
                "The client's own credentials were refused, so no DPoP check could run: \(CheckHTTP.line(response))",
                reference: "", (request, response), note: "fresh proof",
                fix: "check --client-id and the client's secret (--client-secret-file) or its attestation policy")
            return
        }
        let tokens = (try? JSONParser().parse(response.body))?.objectValue
        guard response.statusCode == 200, let accessToken = tokens?["access_token"]?.stringValue else {
            add(
                "dpop.fresh-refused", .error, "A fresh, correct proof was refused", reference: "RFC 9449 §4.3",
                (request, response), note: "fresh proof",
                fix: "accept a correct proof: check the server's DPoP algorithms, clock and htu (its public URL)")
            return
        }
        fresh = accessToken
        await http.obtained(accessToken)
        nonce = response.header("DPoP-Nonce") ?? nonce
        add(
            "dpop.fresh-accepted", .pass, "A fresh proof was accepted", reference: "RFC 9449 §4.3", (request, response),
            note: "fresh proof")
        report.append(
            try await binding(of: accessToken, type: tokens?["token_type"]?.stringValue, exchange: (request, response)))

        // Each of these must be refused. A refused proof costs the client nothing, so a fresh grant is not
        // always needed; the attestation grant makes a fresh CAT each time anyway.
        let required = nonce != nil
        var seen = Set([nonce].compactMap { $0 })
        let started = Date()
        var verdicts: [(index: Int, verdict: RefusalVerdict)] = []
        for attack in Self.attacks(forge, replayed: acceptedProof, nonceRequired: required) {
            let exchange: (HTTPRequest, HTTPResponse)?
            var failure: String?
            do {
                exchange = try await tokenRequest(proof: attack.proof, nonce: nonce)
                guard exchange != nil else { continue }
            } catch let error as TransportError {
                exchange = nil
                failure = error.description
            }
            if let fresh = exchange?.1.header("DPoP-Nonce") {
                nonce = fresh
                seen.insert(fresh)
            }
            let verdict = RefusalVerdict.of(exchange?.1, failure: failure)
            if verdict == .accepted,
                let token = (try? JSONParser().parse(exchange?.1.body ?? Data()))?["access_token"]?.stringValue
            {
                await http.obtained(token)
            }
            verdicts.append((report.count, verdict))
            report.append(
                verdict.finding(
                    rule: attack.rule, group: .dpop, what: attack.what, exchange: exchange.map { ($0.0, $0.1) },
                    note: attack.what))
        }
        // The control: a correct request after the attacks. When it fails, the refusals above may be the
        // server failing rather than checking, so they prove nothing.
        let control = try? await tokenRequest(proof: { try forge.signed(forge.claims(nonce: $0)) }, nonce: nonce)
        if let control, control.1.statusCode == 200 {
            if let token = (try? JSONParser().parse(control.1.body))?["access_token"]?.stringValue {
                await http.obtained(token)
            }
        } else {
            let answer = control.map { CheckHTTP.line($0.1) } ?? "no answer"
            for (index, verdict) in verdicts where verdict != .accepted {
                report[index].demote(to: "the correct request sent after the attacks failed too (\(answer))")
            }
            add(
                "dpop.control-failed", .warning,
                "A correct proof sent after the attacks was not accepted (\(answer)): the refusals above prove nothing",
                reference: "docs/CHECK.md", control, note: "control: a fresh, correct proof",
                fix: "run the check again when the server answers correct requests")
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

    /// Whether the token is bound to the proof's key (RFC 9449 §6): `cnf.jkt` in a JWT, or from introspection
    /// for an opaque token. A readable JWT without `cnf` is not bound, whatever its `token_type` says.
    private func binding(
        of accessToken: String, type: String?, exchange: (HTTPRequest, HTTPResponse)
    ) async throws -> CheckFinding {
        func finding(
            _ rule: Rule, _ severity: CheckFinding.Severity, _ title: String, shown: Bool = false
        )
            -> CheckFinding
        {
            CheckFinding(
                id: rule.id, group: .dpop, severity: severity, title: title,
                sent: shown ? CheckHTTP.line(exchange.0, "fresh proof") : nil,
                received: shown ? CheckHTTP.line(exchange.1) : nil, reference: "")
        }
        let jwt = try? CompactJWS(parsing: accessToken).payloadObject()
        guard type?.lowercased() == "dpop" else {
            return finding(.dpopTokenNotBound, .error, "The token type is \(type ?? "missing"), not DPoP", shown: true)
        }
        if let jwt {
            guard let jkt = jwt["cnf"]?["jkt"]?.stringValue else {
                return finding(
                    .dpopTokenNotBound, .error,
                    "The token is a readable JWT with token_type DPoP but no cnf.jkt: it is not bound to the proof's key",
                    shown: true)
            }
            return jkt == key.thumbprint
                ? finding(.dpopTokenNotBound, .pass, "The token's cnf.jkt is the proof key's thumbprint")
                : finding(.dpopCnfMismatch, .error, "The token's cnf.jkt is not the proof key's thumbprint")
        }
        if let jkt = try await introspectedThumbprint(accessToken) {
            // RFC 9449 §6.2: an opaque token's binding is in its introspection answer.
            return jkt == key.thumbprint
                ? finding(
                    .dpopTokenNotBound, .pass, "Introspection gives the token the proof key's thumbprint (cnf.jkt)")
                : finding(.dpopCnfMismatch, .error, "Introspection gives the token another key's thumbprint")
        }
        return CheckFinding(
            id: "dpop.binding-opaque", group: .dpop, severity: .info,
            title:
                "token_type is DPoP; the token is opaque and introspection (which needs the client's secret) did not show its cnf.jkt",
            reference: "RFC 9449 §6")
    }

    /// The requests that must be refused at the token endpoint.
    package static func attacks(_ forge: ProofForge, replayed: String?, nonceRequired: Bool) -> [Attack] {
        var list = [
            Attack(rule: .dpopReplay, what: "a replayed proof (the jti of an accepted one)") { _ in replayed },
            Attack(rule: .dpopHtmMismatch, what: "a proof for GET sent with a POST") {
                try forge.signed(forge.claims(method: "GET", nonce: $0))
            },
            Attack(rule: .dpopHtuMismatch, what: "a proof for another URL") {
                try forge.signed(forge.claims(url: forge.htu + "/other", nonce: $0))
            },
            Attack(rule: .dpopIatWindow, what: "a proof made ten minutes ago") {
                try forge.signed(forge.claims(iat: Date() - 600, nonce: $0))
            },
            Attack(rule: .dpopIatWindow, what: "a proof dated ten minutes ahead") {
                try forge.signed(forge.claims(iat: Date() + 600, nonce: $0))
            },
            Attack(rule: .dpopTyp, what: "a proof whose typ is jwt, not dpop+jwt") {
                try forge.signed(
                    forge.claims(nonce: $0), header: ["typ": "jwt", "jwk": try forge.key.publicJWK.publicKey().json])
            },
            Attack(rule: .dpopAlg, what: "a proof with alg none and no signature") { nonce in
                let header: JSONValue = [
                    "typ": .string(Dpop.proofType), "alg": "none", "jwk": try forge.key.publicJWK.publicKey().json,
                ]
                return forge.unsigned(header: header, nonce: nonce) + "."
            },
            Attack(rule: .dpopAlg, what: "a proof signed with HS256 and a shared key") { nonce in
                let secret = SymmetricKey(size: .bits256)
                let header: JSONValue = [
                    "typ": .string(Dpop.proofType), "alg": "HS256",
                    "jwk": ["kty": "oct", "k": .string(secret.withUnsafeBytes { Base64URL.encode(Data($0)) })],
                ]
                let input = forge.unsigned(header: header, nonce: nonce)
                let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: secret)
                return input + "." + Base64URL.encode(Data(mac))
            },
            Attack(rule: .dpopSignature, what: "a proof signed by another key than its jwk") {
                try forge.signed(forge.claims(nonce: $0), signer: SoftwareP256SigningKey())
            },
            Attack(rule: .dpopJWK, what: "a proof whose jwk holds the private key") {
                try forge.signed(
                    forge.claims(nonce: $0), header: ["typ": .string(Dpop.proofType), "jwk": forge.key.privateJWK.json])
            },
        ]
        if nonceRequired { list.append(inventedNonce(forge)) }
        return list
    }

    /// A nonce the server never issued must be refused (with `use_dpop_nonce` and a real one offered):
    /// otherwise the nonce is decoration and a proof made in advance still works.
    private static func inventedNonce(_ forge: ProofForge) -> Attack {
        Attack(rule: .dpopNonceUnknown, what: "a proof with a nonce the server never issued") { _ in
            try forge.signed(forge.claims(nonce: "haapi-check-" + SecureRandom.token(byteCount: 12)))
        }
    }
}
