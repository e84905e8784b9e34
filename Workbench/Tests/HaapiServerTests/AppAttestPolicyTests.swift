import Crypto
import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiRawClient
@_spi(Tooling) import Passkeys
import SwiftASN1
import Testing
import X509

@testable import HaapiServer

/// The `appAttest` policy (issue 32, item 3): Apple's attestation object and assertions, verified as Apple
/// documents them, against a test root (`AppAttestSimulator`) in place of Apple's. Every refusal is tried by
/// sending what an attacker or a broken app would.
@Suite("App Attest policy: attestation, assertions, refusals", .timeLimit(.minutes(2)))
struct AppAttestPolicyTests {
    static let appID = "ABCDE12345.io.swift-haapi.tests"

    /// A server with an `appAttest` client trusting `simulator`'s root.
    /// Another app the server trusts, which the `ios` client does not name.
    static let otherAppID = "ABCDE12345.io.swift-haapi.other"

    static func server(
        _ simulator: AppAttestSimulator, environment: AppAttestSettings.Environment = .development,
        databasePath: String? = nil
    ) async throws -> TestServer {
        var configuration = try TestConfiguration.make()
        configuration.appAttest = AppAttestSettings(
            appIDs: [appID, otherAppID], rootCertificate: simulator.rootPEM, environment: environment)
        configuration.clients.append(
            ClientConfiguration(
                id: "ios", attestation: .appAttest, redirectURIs: ["app://ios"], scopes: ["openid"], appIds: [appID]))
        return try await TestServer(configuration: configuration, databasePath: databasePath)
    }

    /// One CAT request: a fresh challenge, the response `make` builds for it, a DPoP proof of `device`'s key.
    static func cat(
        _ server: TestServer, device: HaapiDevice, challenge: String? = nil,
        _ make: (_ challenge: String, _ clientDataHash: Data, _ jkt: String) throws -> String
    ) async throws -> RawResponse {
        let challenge = if let challenge { challenge } else { try await device.challenge() }
        let jkt = device.key.thumbprint
        let clientDataHash = Data(SHA256.hash(data: Data("\(challenge).ios.\(jkt)".utf8)))
        let catURL = device.url("/oauth/token/cat")
        return try await RawHTTP.form(
            catURL,
            [
                ("client_id", "ios"), ("challenge", challenge),
                ("challenge_response", try make(challenge, clientDataHash, jkt)),
            ],
            headers: [("DPoP", try device.proof("POST", catURL))])
    }

    static func response(keyID: String, _ member: String, _ value: Data, jkt: String) -> String {
        let object: JSONObject = [
            "keyId": .string(keyID), .init(stringLiteral: member): .string(Base64URL.encode(value)),
            "jkt": .string(jkt),
        ]
        return Base64URL.encode(Data(JSONValue.object(object).serialized().utf8))
    }

    static func expectRefused(
        _ response: RawResponse, _ words: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.status == 400, "\(response.status) \(response.text)", sourceLocation: sourceLocation)
        #expect(response.json["error"]?.stringValue == "unsupported_device", sourceLocation: sourceLocation)
        #expect(
            response.json["error_description"]?.stringValue?.contains(words) == true, "\(response.text)",
            sourceLocation: sourceLocation)
        #expect(response.json["cat"] == nil, sourceLocation: sourceLocation)
    }

    @Test("an attestation gives a CAT bound to the DPoP key, with jkt and data; then assertions with rising counters")
    func attestThenAssert() async throws {
        let simulator = try AppAttestSimulator()
        let server = try await Self.server(simulator)
        defer { Task { await server.stop() } }
        let device = HaapiDevice(base: server.base, clientID: "ios")
        let keyID = simulator.generateKey()
        let attested = try await Self.cat(server, device: device) { _, hash, jkt in
            Self.response(
                keyID: keyID, "attestation",
                try simulator.attestationObject(keyID: keyID, clientDataHash: hash, appID: Self.appID), jkt: jkt)
        }
        let cat = try #require(attested.json["cat"]?.stringValue, "\(attested.text)")
        let claims = try CompactJWS(parsing: cat).payloadObject()
        #expect(claims["jkt"]?.stringValue == device.key.thumbprint)
        #expect(claims["cnf"]?["jkt"]?.stringValue == device.key.thumbprint)
        #expect(claims["type"]?.stringValue == "appAttest")
        #expect(claims["data"]?["format"]?.stringValue == "apple-appattest")
        #expect(claims["data"]?["appId"]?.stringValue == Self.appID)
        #expect(claims["data"]?["verified"]?.stringValue == "attestation")
        #expect(claims["data"]?["environment"]?.stringValue == "development")

        var lastCAT = cat
        for expected in 1...3 {
            let asserted = try await Self.cat(server, device: device) { _, hash, jkt in
                Self.response(
                    keyID: keyID, "assertion",
                    try simulator.assertion(keyID: keyID, clientDataHash: hash, appID: Self.appID), jkt: jkt)
            }
            lastCAT = try #require(asserted.json["cat"]?.stringValue, "\(asserted.text)")
            let next = try CompactJWS(parsing: lastCAT).payloadObject()
            #expect(next["data"]?["verified"]?.stringValue == "assertion")
            #expect(next["data"]?["counter"]?.numberValue?.intValue == expected)
        }
        // The CAT from an assertion gets the HAAPI token like any other, bound to the DPoP key.
        let token = try await device.haapiTokenRequest(cat: lastCAT)
        #expect(token.json["access_token"]?.stringValue != nil && token.json["token_type"] == "DPoP", "\(token.text)")
    }

    @Test(
        "refused: another app id, another root, a wrong nonce, a production key on a development server, a key id of another key"
    )
    func attestationRefusals() async throws {
        let simulator = try AppAttestSimulator()
        let server = try await Self.server(simulator)
        defer { Task { await server.stop() } }
        let device = HaapiDevice(base: server.base, clientID: "ios")
        func attest(
            _ simulator: AppAttestSimulator, keyID: String? = nil, appID: String = Self.appID,
            aaguid: Data = AppAttestSimulator.developmentAAGUID, nonce: Data? = nil, claimedKeyID: String? = nil
        ) async throws -> RawResponse {
            let key = keyID ?? simulator.generateKey()
            return try await Self.cat(server, device: device) { _, hash, jkt in
                Self.response(
                    keyID: claimedKeyID ?? key, "attestation",
                    try simulator.attestationObject(
                        keyID: key, clientDataHash: hash, appID: appID, aaguid: aaguid, certifiedNonce: nonce),
                    jkt: jkt)
            }
        }
        Self.expectRefused(try await attest(simulator, appID: "ZZZZZ99999.com.example.other"), "RP ID hash")
        Self.expectRefused(try await attest(try AppAttestSimulator()), "certificate chain")
        Self.expectRefused(try await attest(simulator, nonce: Data(repeating: 7, count: 32)), "nonce")
        Self.expectRefused(try await attest(simulator, aaguid: AppAttestSimulator.productionAAGUID), "aaguid")
        Self.expectRefused(try await attest(simulator, claimedKeyID: simulator.generateKey()), "keyId")
        // What was refused stored nothing: each of those keys is still unknown to assertions.
        let keyID = simulator.generateKey()
        Self.expectRefused(try await attest(simulator, keyID: keyID, appID: "ZZZZZ99999.com.example.other"), "RP ID")
        let unknown = try await Self.cat(server, device: device) { _, hash, jkt in
            Self.response(
                keyID: keyID, "assertion",
                try simulator.assertion(keyID: keyID, clientDataHash: hash, appID: Self.appID), jkt: jkt)
        }
        Self.expectRefused(unknown, "unknown App Attest key")
        // A key that was attested cannot be attested again.
        #expect(try await attest(simulator, keyID: keyID).json["cat"] != nil)
        Self.expectRefused(try await attest(simulator, keyID: keyID), "already attested")
    }

    @Test(
        "refused assertions: a counter that goes back or repeats, another key's signature, a replayed challenge, the jkt of another key"
    )
    func assertionRefusals() async throws {
        let simulator = try AppAttestSimulator()
        let server = try await Self.server(simulator)
        defer { Task { await server.stop() } }
        let device = HaapiDevice(base: server.base, clientID: "ios")
        let keyID = simulator.generateKey()
        let attested = try await Self.cat(server, device: device) { _, hash, jkt in
            Self.response(
                keyID: keyID, "attestation",
                try simulator.attestationObject(keyID: keyID, clientDataHash: hash, appID: Self.appID), jkt: jkt)
        }
        #expect(attested.json["cat"] != nil, "\(attested.text)")
        func assert(counter: UInt32? = nil, signer: String? = nil, challenge: String? = nil) async throws -> RawResponse
        {
            try await Self.cat(server, device: device, challenge: challenge) { _, hash, jkt in
                Self.response(
                    keyID: keyID, "assertion",
                    try simulator.assertion(
                        keyID: signer ?? keyID, clientDataHash: hash, appID: Self.appID, counter: counter), jkt: jkt)
            }
        }
        #expect(try await assert(counter: 5).json["cat"] != nil)
        Self.expectRefused(try await assert(counter: 3), "counter")
        Self.expectRefused(try await assert(counter: 5), "counter")
        Self.expectRefused(try await assert(signer: simulator.generateKey()), "signature")
        #expect(try await assert(counter: 6).json["cat"] != nil)

        // A challenge is single use, whatever the response.
        let challenge = try await device.challenge()
        #expect(try await assert(counter: 7, challenge: challenge).json["cat"] != nil)
        let replayed = try await assert(counter: 8, challenge: challenge)
        #expect(
            replayed.status == 400 && replayed.json["error_description"]?.stringValue?.contains("challenge") == true)

        // The response is bound to the jkt it names: a DPoP proof of another key at the CAT endpoint is refused.
        let stranger = HaapiDevice(base: server.base, clientID: "ios", key: SoftwareP256SigningKey())
        let otherChallenge = try await stranger.challenge()
        let hash = Data(SHA256.hash(data: Data("\(otherChallenge).ios.\(device.key.thumbprint)".utf8)))
        let catURL = stranger.url("/oauth/token/cat")
        let mismatch = try await RawHTTP.form(
            catURL,
            [
                ("client_id", "ios"), ("challenge", otherChallenge),
                (
                    "challenge_response",
                    Self.response(
                        keyID: keyID, "assertion",
                        try simulator.assertion(keyID: keyID, clientDataHash: hash, appID: Self.appID),
                        jkt: device.key.thumbprint)
                ),
            ], headers: [("DPoP", try stranger.proof("POST", catURL))])
        Self.expectRefused(mismatch, "DPoP key differs")
    }

    @Test(
        "malformed responses are refused with a reason, never crash: not base64url JSON, both members, neither, garbage CBOR"
    )
    func malformed() async throws {
        let simulator = try AppAttestSimulator()
        let server = try await Self.server(simulator)
        defer { Task { await server.stop() } }
        let device = HaapiDevice(base: server.base, clientID: "ios")
        let keyID = simulator.generateKey()
        let garbage = Data((0..<200).map { UInt8($0 % 251) })
        let makers: [(String, (String, Data, String) throws -> String)] = [
            ("base64url JSON", { _, _, _ in "not json at all" }),
            (
                "exactly one",
                { _, _, jkt in
                    Base64URL.encode(
                        Data(
                            JSONValue.object([
                                "keyId": .string(keyID), "attestation": "AA", "assertion": "AA", "jkt": .string(jkt),
                            ]).serialized().utf8))
                }
            ),
            ("keyId, jkt", { _, _, _ in Base64URL.encode(Data(#"{"keyId":"x"}"#.utf8)) }),
            ("CBOR", { _, _, jkt in Self.response(keyID: keyID, "attestation", garbage, jkt: jkt) }),
            ("assertion is not CBOR", { _, _, jkt in Self.response(keyID: keyID, "assertion", garbage, jkt: jkt) }),
        ]
        for (words, make) in makers {
            let response = try await Self.cat(server, device: device, make)
            #expect(response.status == 400 && response.json["cat"] == nil, "\(words): \(response.text)")
        }
    }

    @Test(
        "configuration: an appAttest client needs the settings; app ids and the root are checked; Apple's root is the default"
    )
    func configuration() throws {
        var configuration = try TestConfiguration.make()
        configuration.clients.append(ClientConfiguration(id: "ios", attestation: .appAttest, appIds: [Self.appID]))
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.appAttest = AppAttestSettings(appIDs: ["not-an-app-id"])
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.appAttest = AppAttestSettings(
            appIDs: [Self.appID], rootCertificate: "-----BEGIN CERTIFICATE-----\nAA\n")
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.appAttest = AppAttestSettings(appIDs: [Self.appID])
        try configuration.validate()
        // The client must name its apps, each one the server trusts.
        configuration.clients[configuration.clients.count - 1].appIds = []
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.clients[configuration.clients.count - 1].appIds = [Self.otherAppID]
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        let decoded = try ServerConfiguration.load(
            json: Data(
                #"{"clients":[],"authenticators":[{"id":"p","type":"username-password","title":"P"}],"appAttest":{"appIDs":["ABCDE12345.a.b"],"environment":"production"}}"#
                    .utf8))
        #expect(decoded.appAttest?.environment == .production && decoded.appAttest?.rootCertificate == nil)
    }

    @Test("a key of another trusted app is refused for this client, and stays unknown; keyId has one spelling")
    func otherAppAndKeySpelling() async throws {
        let simulator = try AppAttestSimulator()
        let server = try await Self.server(simulator)
        defer { Task { await server.stop() } }
        let device = HaapiDevice(base: server.base, clientID: "ios")
        let keyID = simulator.generateKey()
        let other = try await Self.cat(server, device: device) { _, hash, jkt in
            Self.response(
                keyID: keyID, "attestation",
                try simulator.attestationObject(keyID: keyID, clientDataHash: hash, appID: Self.otherAppID), jkt: jkt)
        }
        Self.expectRefused(other, "not an app of client ios")
        // Nothing was stored: the key is unknown to assertions, and can still be attested for the right app.
        let unknown = try await Self.cat(server, device: device) { _, hash, jkt in
            Self.response(
                keyID: keyID, "assertion",
                try simulator.assertion(keyID: keyID, clientDataHash: hash, appID: Self.appID), jkt: jkt)
        }
        Self.expectRefused(unknown, "unknown App Attest key")
        #expect(
            try await Self.cat(server, device: device) { _, hash, jkt in
                Self.response(
                    keyID: keyID, "attestation",
                    try simulator.attestationObject(keyID: keyID, clientDataHash: hash, appID: Self.appID), jkt: jkt)
            }.json["cat"] != nil)
        // The same key id in the other base64 spellings (url-safe, unpadded) is not another key: refused.
        let bytes = try #require(Data(base64Encoded: keyID))
        let urlSafe = Base64URL.encode(bytes)
        for spelling in [urlSafe, urlSafe + "=", String(keyID.dropLast())] where spelling != keyID {
            let response = try await Self.cat(server, device: device) { _, hash, jkt in
                Self.response(
                    keyID: spelling, "assertion",
                    try simulator.assertion(keyID: keyID, clientDataHash: hash, appID: Self.appID), jkt: jkt)
            }
            Self.expectRefused(response, "keyId")
        }
    }

    @Test("a key attested in development is refused once the server accepts production keys")
    func environmentSwitch() async throws {
        let simulator = try AppAttestSimulator()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("appattest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("server.sqlite").path
        let keyID = simulator.generateKey()
        func assertion(_ server: TestServer, _ device: HaapiDevice) async throws -> RawResponse {
            try await Self.cat(server, device: device) { _, hash, jkt in
                Self.response(
                    keyID: keyID, "assertion",
                    try simulator.assertion(keyID: keyID, clientDataHash: hash, appID: Self.appID), jkt: jkt)
            }
        }
        let development = try await Self.server(simulator, databasePath: path)
        let device = HaapiDevice(base: development.base, clientID: "ios")
        let attested = try await Self.cat(development, device: device) { _, hash, jkt in
            Self.response(
                keyID: keyID, "attestation",
                try simulator.attestationObject(keyID: keyID, clientDataHash: hash, appID: Self.appID), jkt: jkt)
        }
        #expect(attested.json["cat"] != nil, "\(attested.text)")
        #expect(try await assertion(development, device).json["cat"] != nil)
        await development.stop()

        let production = try await Self.server(simulator, environment: .production, databasePath: path)
        defer { Task { await production.stop() } }
        let moved = HaapiDevice(base: production.base, clientID: "ios")
        Self.expectRefused(try await assertion(production, moved), "attested in the development environment")
    }

    @Test("the default root is Apple's App Attestation Root CA (SHA-256 of its DER as Apple publishes it)")
    func appleRoot() throws {
        let root = try Certificate(pemEncoded: AppleAppAttestationRoot.pem)
        var serializer = DER.Serializer()
        try serializer.serialize(root)
        let fingerprint = SHA256.hash(data: Data(serializer.serializedBytes)).map { String(format: "%02x", $0) }
            .joined()
        #expect(fingerprint == "1cb9823ba28ba6ad2d33a006941de2ae4f513ef1d4e831b9f7e0fa7b6242c932")
        #expect(root.subject.description.contains("Apple App Attestation Root CA"))
    }

    /// A real iOS 14.4 device's assertion (examined while writing this, not kept here) has 37 bytes of
    /// authenticator data whose flags byte is 0x40, the attested-credential flag, with no credential data
    /// after it. Read as WebAuthn authenticator data that is truncated, and every sign-in after a device's
    /// first was refused; the simulator now makes assertions that way.
    @Test(
        "assertions as devices make them: the attested-credential flag set without credential data verifies; less than 37 bytes does not"
    )
    func deviceShapedAssertion() async throws {
        let simulator = try AppAttestSimulator()
        let keyID = simulator.generateKey()
        let clientDataHash = Data(SHA256.hash(data: Data("challenge".utf8)))
        let trust = AppAttestVerifier.Trust(
            root: try Certificate(pemEncoded: simulator.rootPEM), appIDs: [Self.appID], environment: .development)
        let attested = await AppAttestVerifier.verifyAttestation(
            try simulator.attestationObject(keyID: keyID, clientDataHash: clientDataHash, appID: Self.appID),
            keyID: keyID, clientDataHash: clientDataHash, trust: trust)
        guard case .success(let key) = attested else {
            Issue.record("the simulator's attestation was refused: \(attested)")
            return
        }
        let assertion = try simulator.assertion(keyID: keyID, clientDataHash: clientDataHash, appID: Self.appID)
        let authData = try #require(CBORDecoder().decode(assertion)["authenticatorData"]?.bytesValue)
        #expect(authData.count == 37 && authData[authData.startIndex + 32] == 0x40)
        #expect(AppAttestVerifier.verifyAssertion(assertion, clientDataHash: clientDataHash, key: key) == .success(1))

        // The same signed over 36 bytes of authenticator data: refused as malformed, not read past the end.
        let short = Data(authData.prefix(36))
        let signature = try #require(CBORDecoder().decode(assertion)["signature"]?.bytesValue)
        let truncated = CBOREncoder.encode(
            .map([CBORMapEntry("signature", .bytes(signature)), CBORMapEntry("authenticatorData", .bytes(short))]))
        guard
            case .failure(.malformed) = AppAttestVerifier.verifyAssertion(
                truncated, clientDataHash: clientDataHash, key: key)
        else {
            Issue.record("36 bytes of authenticator data were accepted")
            return
        }
    }
}
