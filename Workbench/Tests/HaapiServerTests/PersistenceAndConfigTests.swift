import Foundation
import GRDB
@_spi(Tooling) import HaapiDriver
import HaapiRawClient
import Testing

@testable import HaapiServer

@Suite("Persistence (item 7)")
struct PersistenceTests {
    @Test("a restart keeps users, dynamic clients, refresh tokens and lockouts; secrets are stored hashed")
    func restart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("haapi-db-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("server.sqlite").path

        let first = try await TestServer(databasePath: path)
        let device = HaapiDevice(base: first.base)
        try await device.obtainHaapiToken()
        let tokens = try await device.redeem(code: try await device.passwordLogin())
        let refresh = try #require(tokens.json["refresh_token"]?.stringValue)
        let dcrToken =
            try await RawHTTP.form(
                first.base + "/oauth/token", [("grant_type", "client_credentials"), ("scope", "dcr")],
                headers: [RawHTTP.basic("haapi-dcr-main", "dcr-main-secret-change-me")]
            ).json["access_token"]?.stringValue ?? ""
        let registered = try await RawHTTP.send(
            "POST", first.base + "/oauth/register", headers: [("Authorization", "Bearer " + dcrToken)],
            body: Data(#"{"software_id":"haapi-dcr-template"}"#.utf8)
        ).json
        let clientID = try #require(registered["client_id"]?.stringValue)
        let secret = try #require(registered["client_secret"]?.stringValue)
        for _ in 0..<5 {
            _ = try await first.server.authenticatorService.checkPassword(username: "lockme", password: "wrong")
        }
        await first.stop()

        let store = try ServerStore(path: path)
        #expect(try await store.tableNames().contains("passkey_credentials"))
        let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600, "the database holds password hashes and the signing key")
        let hashed = TokenHash.of(refresh)
        let stored = try await store.database.read { db in
            (
                passwordHash: try String.fetchOne(
                    db, sql: "SELECT password_hash FROM users WHERE username = 'demouser'") ?? "",
                plainRefresh: try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM refresh_tokens WHERE token_hash = ?", arguments: [refresh]) ?? -1,
                hashedRefresh: try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM refresh_tokens WHERE token_hash = ?", arguments: [hashed]) ?? -1,
                plainSecret: try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM dynamic_clients WHERE secret_hash = ?", arguments: [secret]) ?? -1
            )
        }
        #expect(stored.passwordHash.hasPrefix("pbkdf2-sha256$600000$"))
        #expect(stored.plainRefresh == 0 && stored.hashedRefresh == 1 && stored.plainSecret == 0)

        let second = try await TestServer(databasePath: path)
        device.nonce = nil
        var refreshed = try await RawHTTP.form(
            second.base + "/oauth/token",
            [("grant_type", "refresh_token"), ("client_id", "haapi-demo"), ("refresh_token", refresh)],
            headers: [
                (
                    "DPoP",
                    try device.dpop.createProof(
                        httpMethod: "POST", url: #require(URL(string: second.base + "/oauth/token")))
                )
            ])
        if refreshed.json["error"] == "use_dpop_nonce" {
            refreshed = try await RawHTTP.form(
                second.base + "/oauth/token",
                [("grant_type", "refresh_token"), ("client_id", "haapi-demo"), ("refresh_token", refresh)],
                headers: [
                    (
                        "DPoP",
                        try device.dpop.createProof(
                            httpMethod: "POST", url: #require(URL(string: second.base + "/oauth/token")),
                            nonce: refreshed.header("DPoP-Nonce"))
                    )
                ])
        }
        #expect(refreshed.status == 200, "\(refreshed.text)")
        let dynamic = try await RawHTTP.form(
            second.base + "/oauth/token", [("grant_type", "client_credentials"), ("scope", "openid")],
            headers: [RawHTTP.basic(clientID, secret)])
        #expect(dynamic.status == 200, "\(dynamic.text)")
        guard
            case .locked = try await second.server.authenticatorService.checkPassword(
                username: "lockme", password: "Password1")
        else {
            Issue.record("the lockout did not survive the restart")
            return
        }
        await second.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

@Suite("Configuration and secure defaults (items 8, 9)")
struct ConfigurationTests {
    @Test("the embedded default has the demo user, the demo client and the DCR pair")
    func embeddedDefault() throws {
        let configuration = try ServerConfiguration.embeddedDefault
        // The demo user comes with its hash, made once, and that hash verifies the published password.
        let demoUser = try #require(configuration.users.first { $0.username == "demouser" })
        #expect(demoUser.password == nil)
        let hasher = PasswordHasher(iterations: configuration.security.passwordHashIterations)
        #expect(hasher.verify(ServerConfiguration.demoPassword, against: try #require(demoUser.passwordHash)))
        #expect(!hasher.verify("Password2", against: try #require(demoUser.passwordHash)))
        let demo = try #require(configuration.clients.first { $0.id == "haapi-demo" })
        #expect(
            demo.attestation == .software && demo.tokenBoundCodes && demo.dpopNonce
                && demo.redirectURIs == ["app://haapi"])
        #expect(demo.scopes.contains("openid") && demo.scopes.contains("profile"))
        let template = try #require(configuration.clients.first { $0.dcrTemplate != nil })
        #expect(
            configuration.clients.contains { $0.id == template.dcrTemplate?.authenticateClientBy && $0.isConfidential })
    }

    @Test(
        "bad configuration gives an error that says what to fix",
        arguments: [
            (
                #"{"clients":[{"id":"a"},{"id":"a"}],"authenticators":[{"id":"p","type":"username-password","title":"P"}]}"#,
                "client \"a\" is defined twice"
            ),
            (
                #"{"clients":[{}],"authenticators":[{"id":"p","type":"username-password","title":"P"}]}"#,
                "clients[0].id: missing"
            ),
            (#"{"clients":[],"authenticators":[]}"#, "at least one authenticator is needed"),
            (
                #"{"clients":[{"id":"a","tokenBoundCodes":true}],"authenticators":[{"id":"p","type":"username-password","title":"P"}]}"#,
                "tokenBoundCodes requires dpopNonce"
            ),
            (
                #"{"clients":[{"id":"a","authenticators":["x"]}],"authenticators":[{"id":"p","type":"username-password","title":"P"}]}"#,
                "unknown authenticator \"x\""
            ),
            (
                #"{"clients":[{"id":"a","authenticationMethod":"client_secret_basic"}],"authenticators":[{"id":"p","type":"username-password","title":"P"}]}"#,
                "has no secret"
            ),
            (#"{"clients":[],"authenticators":[{"id":"p","type":"magic","title":"P"}]}"#, "invalid configuration"),
            (
                #"{"clients":[],"authenticators":[{"id":"p","type":"username-password","title":"P"}],"security":{"passwordHashIterations":1000}}"#,
                "at least 600000"
            ),
            ("not json", "not valid JSON"),
            (
                #"{"clients":[],"authenticators":[{"id":"p","type":"username-password","title":"P"}],"dpop":{"algorithms":["HS256"]}}"#,
                "not an asymmetric JWS algorithm"
            ),
            (
                #"{"clients":[],"authenticators":[{"id":"p","type":"username-password","title":"P"}],"authHub":{"tenants":[{"name":"t","fieldsToBeEncryptedInAuthFlow":["ssn"]}]}}"#,
                "unknown field \"ssn\""
            ),
            (
                #"{"clients":[],"authenticators":[{"id":"p","type":"username-password","title":"P"}],"authHub":{"tenants":[{"name":"t","secondFactors":["SMSOTP"]}]}}"#,
                "unknown factor \"SMSOTP\""
            ),
            (
                #"{"clients":[],"authenticators":[{"id":"p","type":"username-password","title":"P"}],"authHub":{"tenants":[{"name":"a"},{"name":"b","proxyPath":"a"}]}}"#,
                "names two tenants"
            ),
            (
                #"{"clients":[],"authenticators":[{"id":"p","type":"username-password","title":"P"}],"authHub":{"tenants":[{"name":"oauth"}]}}"#,
                "cannot be a tenant name"
            ),
            (
                #"{"clients":[],"authenticators":[{"id":"p","type":"username-password","title":"P"}],"lifetimes":{"refreshTokenReuseGrace":3600}}"#,
                "refreshTokenReuseGrace must be 0…300"
            ),
            (
                #"{"clients":[],"authenticators":[{"id":"p","type":"username-password","title":"P"}],"dpop":{"iatWindowSeconds":86401}}"#,
                "must be at most 86400 seconds"
            ),
            (
                #"{"clients":[],"users":[{"username":"u"}],"authenticators":[{"id":"p","type":"username-password","title":"P"}]}"#,
                "neither password nor passwordHash"
            ),
            (
                #"{"clients":[],"users":[{"username":"u","password":"x","passwordHash":"pbkdf2-sha256$600000$tIsnoKN_za5Cy8-gCAAgqw$mVNPw5a2Riab-cN230IGPe2Nvn_f5FvWUaIxnGo4ing"}],"authenticators":[{"id":"p","type":"username-password","title":"P"}]}"#,
                "both password and passwordHash"
            ),
            (
                #"{"clients":[],"users":[{"username":"u","passwordHash":"sha1$abc"}],"authenticators":[{"id":"p","type":"username-password","title":"P"}]}"#,
                "is not a pbkdf2-sha256"
            ),
            (
                #"{"clients":[],"users":[{"username":"u","passwordHash":"pbkdf2-sha256$1000$tIsnoKN_za5Cy8-gCAAgqw$mVNPw5a2Riab-cN230IGPe2Nvn_f5FvWUaIxnGo4ing"}],"authenticators":[{"id":"p","type":"username-password","title":"P"}]}"#,
                "uses 1000 iterations"
            ),
        ])
    func badConfiguration(json: String, expected: String) {
        do {
            _ = try ServerConfiguration.load(json: Data(json.utf8))
            Issue.record("accepted a bad configuration")
        } catch {
            #expect("\(error)".contains(expected), "\(error)")
        }
    }

    @Test("a port that is already taken is a clear start error, not a hang")
    func portTaken() async throws {
        let server = try await TestServer.shared.get()
        let port = try #require(URL(string: server.base)?.port)
        let second = try DevServer(configuration: TestConfiguration.make(), store: ServerStore(path: nil))
        await #expect(throws: ServerStartError.self) { _ = try await second.start(port: port) }
    }

    @Test("request bodies over the limit are refused before they are read")
    func bodyLimit() async throws {
        let server = try await TestServer.shared.get()
        let huge = Data(repeating: UInt8(ascii: "a"), count: 200 * 1024)
        let response = try await RawHTTP.send(
            "POST", server.base + "/oauth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: huge)
        #expect(response.status == 413)
    }

    @Test("admin endpoints and the health endpoint")
    func adminAndHealth() async throws {
        let server = try await TestServer.shared.get()
        #expect(try await RawHTTP.send("GET", server.base + "/health").json == ["status": "ok"])
        let outbox = try await RawHTTP.send("GET", server.base + "/admin/outbox")
        #expect(outbox.status == 200 && outbox.json["messages"]?.arrayValue != nil)
        #expect(try await RawHTTP.form(server.base + "/admin/approve", []).status == 400)
    }

    @Test("secrets are compared in constant time and tokens are hashed before storage")
    func secretHandling() {
        #expect(
            ConstantTime.equals("secret", "secret") && !ConstantTime.equals("secret", "secreT")
                && !ConstantTime.equals("a", "ab"))
        #expect(
            TokenHash.of("token")
                == Base64URL.encode(
                    Array(Data(base64Encoded: "PEaenWxYddN6Q/NT1PiOYfz4EsZu7jRXRlpAsNpBU+A=") ?? Data())))
    }
}
