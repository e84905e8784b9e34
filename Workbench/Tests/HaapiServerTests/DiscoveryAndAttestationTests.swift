import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiRawClient
import Testing

@testable import HaapiServer

@Suite("Discovery and keys (item 1)")
struct DiscoveryTests {
    @Test("discovery lists every endpoint and the DPoP algorithms; JWKS publishes the ES256 key")
    func discovery() async throws {
        let server = try await TestServer.shared.get()
        let document = try await RawHTTP.send("GET", server.base + "/.well-known/openid-configuration").json
        #expect(document["issuer"]?.stringValue == server.base)
        for (member, path) in [
            ("token_endpoint", "/oauth/token"), ("authorization_endpoint", "/oauth/authorize"),
            ("revocation_endpoint", "/oauth/revoke"), ("introspection_endpoint", "/oauth/introspect"),
            ("registration_endpoint", "/oauth/register"), ("jwks_uri", "/oauth/jwks"),
        ] {
            #expect(document[member]?.stringValue == server.base + path, "\(member)")
        }
        #expect(document["dpop_signing_alg_values_supported"]?.arrayValue?.contains("ES256") == true)
        #expect(document["token_endpoint_auth_methods_supported"]?.arrayValue?.contains("private_key_jwt") == true)
        let metadata = try await RawHTTP.send("GET", server.base + "/.well-known/oauth-authorization-server").json
        #expect(metadata == document)

        let jwks = try await RawHTTP.send("GET", server.base + "/oauth/jwks").json
        let key = try JWK(json: try #require(jwks["keys"]?[0]))
        #expect(key.keyType == "EC" && key.curve == "P-256" && !key.hasPrivateMembers)
        #expect(key.members["alg"] == "ES256" && key.members["kid"]?.stringValue != nil)
    }
}

@Suite("Client attestation and the CAT endpoint (item 2)")
struct AttestationTests {
    @Test("a software attestation yields a CAT whose cnf.jkt is the attested key; nonce clients get DPoP-Nonce")
    func catIssued() async throws {
        let server = try await TestServer.shared.get()
        let device = HaapiDevice(base: server.base)
        let cat = try await device.clientAttestationToken()
        #expect(device.nonce != nil)
        let claims = try CompactJWS(parsing: cat).payloadObject()
        #expect(claims["cnf"]?["jkt"]?.stringValue == device.key.thumbprint)
        #expect(claims["sub"] == "haapi-demo" && claims["purpose"] == "cat")
        let token = try await device.haapiTokenRequest(cat: cat)
        #expect(token.status == 200, "\(token.text)")
        let haapiClaims = try CompactJWS(parsing: try #require(token.json["access_token"]?.stringValue)).payloadObject()
        #expect(token.json["token_type"] == "DPoP" && token.json["scope"] == "urn:se:curity:scopes:haapi")
        #expect(haapiClaims["cnf"]?["jkt"]?.stringValue == device.key.thumbprint)
        #expect(haapiClaims["scope"] == "urn:se:curity:scopes:haapi")
        // The CAT is single use.
        let again = try await device.haapiTokenRequest(cat: cat)
        #expect(again.status == 401 && again.json["error"] == "invalid_client")
    }

    @Test("the challenge needs a known attested client")
    func challengeErrors() async throws {
        let server = try await TestServer.shared.get()
        let missing = try await RawHTTP.send("GET", server.base + "/oauth/token/cat")
        #expect(missing.status == 400 && missing.json["error"] == "invalid_request")
        let unknown = try await RawHTTP.send("GET", server.base + "/oauth/token/cat?client_id=nobody")
        #expect(unknown.status == 401 && unknown.json["error"] == "invalid_client")
        let notAttested = try await RawHTTP.send("GET", server.base + "/oauth/token/cat?client_id=secret-basic")
        #expect(notAttested.json["error"] == "invalid_client")
    }

    @Test("a replayed challenge, a bad signature, a wrong challenge and another client's challenge are refused")
    func rejections() async throws {
        let server = try await TestServer.shared.get()
        let device = HaapiDevice(base: server.base)
        let catURL = server.base + "/oauth/token/cat"

        let challenge = try await device.challenge()
        let good = try HaapiDevice.attestation(challenge: challenge, clientID: "haapi-demo", key: device.key)
        #expect(
            try await RawHTTP.form(
                catURL, [("client_id", "haapi-demo"), ("challenge", challenge), ("challenge_response", good)]
            ).status == 200)
        let replay = try await RawHTTP.form(
            catURL, [("client_id", "haapi-demo"), ("challenge", challenge), ("challenge_response", good)])
        #expect(replay.status == 400 && replay.json["error_description"]?.stringValue?.contains("already used") == true)

        let second = try await device.challenge()
        var parts = try HaapiDevice.attestation(challenge: second, clientID: "haapi-demo", key: device.key).split(
            separator: "."
        ).map(String.init)
        parts[2] = try HaapiDevice.attestation(challenge: "other", clientID: "haapi-demo", key: device.key).split(
            separator: "."
        ).map(String.init)[2]
        let forged = try await RawHTTP.form(
            catURL,
            [("client_id", "haapi-demo"), ("challenge", second), ("challenge_response", parts.joined(separator: "."))])
        #expect(forged.status == 400 && forged.json["error"] == "unsupported_device")

        let third = try await device.challenge()
        let wrongChallenge = try HaapiDevice.attestation(
            challenge: "not-the-challenge", clientID: "haapi-demo", key: device.key)
        let mismatch = try await RawHTTP.form(
            catURL, [("client_id", "haapi-demo"), ("challenge", third), ("challenge_response", wrongChallenge)])
        #expect(mismatch.json["error"] == "unsupported_device")

        let legacyChallenge =
            try await RawHTTP.send("GET", server.base + "/oauth/token/cat?client_id=legacy-client").json["challenge"]?
            .stringValue ?? ""
        let crossClient = try await RawHTTP.form(
            catURL,
            [
                ("client_id", "haapi-demo"), ("challenge", legacyChallenge),
                ("challenge_response", good),
            ])
        #expect(crossClient.status == 401 && crossClient.json["error"] == "invalid_client")

        let fourth = try await device.challenge()
        let missingResponse = try await RawHTTP.form(catURL, [("client_id", "haapi-demo"), ("challenge", fourth)])
        #expect(missingResponse.status == 400 && missingResponse.json["error"] == "invalid_request")
    }

    @Test("a DPoP key other than the attested one is refused, at the CAT endpoint and at the token endpoint")
    func keyMismatch() async throws {
        let server = try await TestServer.shared.get()
        let device = HaapiDevice(base: server.base)
        let other = Dpop(key: SoftwareP256SigningKey())
        let catURL = server.base + "/oauth/token/cat"
        let challenge = try await device.challenge()
        let attestation = try HaapiDevice.attestation(challenge: challenge, clientID: "haapi-demo", key: device.key)
        let atCAT = try await RawHTTP.form(
            catURL, [("client_id", "haapi-demo"), ("challenge", challenge), ("challenge_response", attestation)],
            headers: [("DPoP", try other.createProof(httpMethod: "POST", url: #require(URL(string: catURL))))])
        #expect(atCAT.status == 400 && atCAT.json["error"] == "unsupported_device")

        let cat = try await device.clientAttestationToken()
        let tokenURL = server.base + "/oauth/token"
        let proof = try other.createProof(httpMethod: "POST", url: #require(URL(string: tokenURL)), nonce: device.nonce)
        let atToken = try await RawHTTP.form(
            tokenURL,
            [
                ("grant_type", "client_credentials"), ("client_assertion_type", "urn:se:curity:attestation:client"),
                ("client_assertion", cat),
            ], headers: [("DPoP", proof)])
        #expect(atToken.status == 400 && atToken.json["error"] == "invalid_dpop_proof")
        #expect(atToken.json["error_description"]?.stringValue?.contains("attested") == true)
    }

    @Test("an expired challenge is refused")
    func expiredChallenge() async throws {
        let server = try await TestServer()
        let device = HaapiDevice(base: server.base)
        let challenge = try await device.challenge()
        server.clock.advance(121)
        let response = try await RawHTTP.form(
            server.base + "/oauth/token/cat",
            [
                ("client_id", "haapi-demo"), ("challenge", challenge),
                (
                    "challenge_response",
                    try HaapiDevice.attestation(
                        challenge: challenge, clientID: "haapi-demo", key: device.key, iat: server.clock.now)
                ),
            ])
        #expect(
            response.status == 400
                && response.json["error_description"] == "the challenge has expired [haapi.attestation-refused]")
        await server.stop()
    }

    @Test("the disabled policy accepts any challenge response, like the vendor's emulator policy")
    func disabledPolicy() async throws {
        let server = try await TestServer.shared.get()
        let device = HaapiDevice(base: server.base, clientID: "consent-client")
        let challenge = try await device.challenge()
        let response = try await RawHTTP.form(
            server.base + "/oauth/token/cat",
            [
                ("client_id", "consent-client"), ("challenge", challenge), ("challenge_response", "anything at all"),
            ])
        #expect(response.status == 200 && response.json["cat"]?.stringValue != nil)
    }
}
