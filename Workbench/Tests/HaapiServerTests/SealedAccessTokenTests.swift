import Crypto
import Foundation
import GRDB
import HTTPTypes
@_spi(Tooling) import HaapiDriver
import HaapiRawClient
import Hummingbird
import NIOCore
import Testing

@testable import HaapiServer

@Suite("Sealed access tokens (issue 15, item 4: no write on the token endpoint)")
struct SealedAccessTokenTests {
    static func clientCredentialsToken(_ server: TestServer) async throws -> String {
        let response = try await RawHTTP.form(
            server.base + "/oauth/token", [("grant_type", "client_credentials"), ("scope", "dcr")],
            headers: [RawHTTP.basic("haapi-dcr-main", "dcr-main-secret-change-me")])
        return try #require(response.json["access_token"]?.stringValue, "\(response.text)")
    }

    static func introspect(_ server: TestServer, _ token: String) async throws -> RawResponse {
        try await RawHTTP.form(
            server.base + "/oauth/introspect", [("token", token)],
            headers: [RawHTTP.basic("haapi-dcr-main", "dcr-main-secret-change-me")])
    }

    @Test("issuing writes nothing; the token introspects with its record; RFC 7009 revocation makes it inactive")
    func issueIntrospectRevoke() async throws {
        let server = try await TestServer.shared.get()
        let rows = {
            try server.server.store.database.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM access_tokens") ?? -1
            }
        }
        let before = try rows()
        let token = try await Self.clientCredentialsToken(server)
        #expect(try rows() == before, "a client-credentials token is sealed, not stored")

        let live = try await Self.introspect(server, token)
        #expect(
            live.json["active"] == true && live.json["client_id"] == "haapi-dcr-main" && live.json["scope"] == "dcr",
            "\(live.text)")

        let revoked = try await RawHTTP.form(
            server.base + "/oauth/revoke", [("token", token)],
            headers: [RawHTTP.basic("haapi-dcr-main", "dcr-main-secret-change-me")])
        #expect(revoked.status == 200)
        #expect(try await Self.introspect(server, token).json["active"] == false)
        // A revoked token no longer registers clients either.
        let registration = try await RawHTTP.send(
            "POST", server.base + "/oauth/register",
            headers: [
                ("Authorization", "Bearer " + token), ("Content-Type", "application/json"),
            ], body: Data(#"{"software_id":"haapi-dcr-template"}"#.utf8))
        #expect(registration.status == 401)
    }

    @Test("a changed claim, a changed MAC, another server's token and junk after the prefix are refused")
    func forgeries() async throws {
        let server = try await TestServer.shared.get()
        let token = try await Self.clientCredentialsToken(server)
        let parts = token.split(separator: ".").map(String.init)
        try #require(parts.count == 3 && parts[0] == "at1")
        // Widen the scope and keep the MAC: refused.
        let claims = try #require(Base64URL.decode(parts[1]))
        let widened = String(decoding: claims, as: UTF8.self).replacingOccurrences(
            of: "\"dcr\"", with: "\"dcr openid\"")
        let forged = "at1." + Base64URL.encode(Array(widened.utf8)) + "." + parts[2]
        var mac = try #require(Base64URL.decode(parts[2]))
        mac[0] ^= 1
        let flipped = "at1." + parts[1] + "." + Base64URL.encode(mac)
        // The same claims sealed under another key (another server's database).
        let otherServer = SealedAccessTokens(key: .init(size: .bits256))
        let record = try #require(server.server.accessTokens.open(token)).record
        let foreign = otherServer.seal(record, jti: "foreign")
        for candidate in [forged, flipped, foreign, "at1", "at1.", "at1..", "at1.e30.", ".at1", token + "x"] {
            #expect(server.server.accessTokens.open(candidate) == nil, "\(candidate)")
            #expect(try await Self.introspect(server, candidate).json["active"] == false, "\(candidate)")
        }
    }
}

@Suite("DPoP proofs and single-use ids")
struct ProofAndSingleUseTests {
    @Test("a proof's header with claims signed by another key is refused; a private jwk is refused")
    func headerAndSignature() async throws {
        let now = Date()
        let verifier = DPoPVerifier(
            algorithms: [.es256], iatWindow: 60, nonces: DPoPNonceService(rotationInterval: 300, now: now),
            replayCache: ProofReplayFilter(window: 60))
        let key = SoftwareP256SigningKey()
        let dpop = Dpop(key: key)
        let url = "https://server.example/oauth/token"
        var header = ""
        for _ in 0..<3 {
            let proof = try dpop.createProof(httpMethod: "POST", url: try #require(URL(string: url)))
            header = String(proof.prefix { $0 != "." })
            let verified = try await verifier.verify(
                headerValues: [proof], method: "POST", requestURL: url, requireNonce: false, now: now)
            #expect(verified.thumbprint == key.thumbprint)
        }

        // The very header the client sends, with claims signed by another key: refused.
        let impostor = SoftwareP256SigningKey()
        let claims: JSONObject = [
            "jti": "forged", "htm": "POST", "htu": .string(url),
            "iat": .number(JSONNumber(Int(now.timeIntervalSince1970))),
        ]
        let forged = try JWS.sign(
            encodedHeader: header, payload: Data(JSONValue.object(claims).serialized().utf8), signer: impostor)
        await #expect(throws: DPoPFailure.self) {
            _ = try await verifier.verify(
                headerValues: [forged], method: "POST", requestURL: url, requireNonce: false, now: now)
        }
        // The same claims signed by the right key pass: the refusal above was the signature.
        let genuine = try JWS.sign(
            encodedHeader: header, payload: Data(JSONValue.object(claims).serialized().utf8), signer: key)
        _ = try await verifier.verify(
            headerValues: [genuine], method: "POST", requestURL: url, requireNonce: false, now: now)
        // A private key in the header is refused.
        let leaky = try JWS.sign(
            claims: claims, header: ["typ": "dpop+jwt", "jwk": impostor.privateJWK.json], signer: impostor)
        await #expect(throws: DPoPFailure.self) {
            _ = try await verifier.verify(
                headerValues: [leaky], method: "POST", requestURL: url, requireNonce: false, now: now)
        }
    }

    @Test("the single-use cache takes any date without trapping; an id it may have forgotten is refused")
    func replayCacheDates() async {
        let cache = SingleUseCache()
        let now = Date()
        // An expiry not after the cache's latest second may have been swept: refused as a replay.
        for (expiry, outcome) in [
            (Date.distantFuture, SingleUseCache.Outcome.accepted), (Date.distantPast, .replayed),
            (Date(timeIntervalSince1970: 9.3e18), .accepted), (Date(timeIntervalSince1970: -9.3e18), .replayed),
            (now.addingTimeInterval(86_400), .accepted), (now, .replayed),
        ] {
            #expect(
                await cache.record(jti: "j\(expiry.timeIntervalSince1970)", jkt: "k", until: expiry, now: now)
                    == outcome)
        }
        #expect(
            await cache.record(jti: "late", jkt: "k", until: now, now: Date(timeIntervalSince1970: .infinity))
                == .replayed)
    }

    @Test("used ids are kept until they expire, whatever order requests come in; a full cache refuses")
    func singleUseOrder() async {
        let cache = SingleUseCache(capacity: 2)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let expiry = now.addingTimeInterval(120)
        #expect(await cache.record(jti: "a", jkt: "k", until: expiry, now: now) == .accepted)
        #expect(await cache.record(jti: "b", jkt: "k", until: expiry, now: now) == .accepted)
        #expect(await cache.record(jti: "c", jkt: "k", until: expiry, now: now) == .full)
        // Later than a's expiry the cache sweeps; a replay of a whose now was read earlier is still refused.
        let later = now.addingTimeInterval(500)
        #expect(await cache.record(jti: "c", jkt: "k", until: later.addingTimeInterval(120), now: later) == .accepted)
        #expect(await cache.record(jti: "a", jkt: "k", until: expiry, now: now.addingTimeInterval(5)) == .replayed)
        // The pair does not run together: ("ab", "cdef") is not ("abc", "def").
        let pairs = SingleUseCache(capacity: 10)
        #expect(await pairs.record(jti: "cdef", jkt: "ab", until: expiry, now: now) == .accepted)
        #expect(await pairs.record(jti: "def", jkt: "abc", until: expiry, now: now) == .accepted)
        #expect(await pairs.record(jti: "def", jkt: "abc", until: expiry, now: now) == .replayed)
    }
}

@Suite("Header helpers on the hot path")
struct HeaderHelperTests {
    @Test("auth schemes compare without case and need the space; OWS trimming keeps inner spaces")
    func schemesAndTrimming() {
        #expect(
            HTTP.hasAuthScheme("Basic abc", "basic") && HTTP.hasAuthScheme("BASIC abc", "basic")
                && HTTP.hasAuthScheme("DPoP t", "dpop"))
        #expect(
            !HTTP.hasAuthScheme("Basicabc", "basic") && !HTTP.hasAuthScheme("Bas", "basic")
                && !HTTP.hasAuthScheme("Bearer t", "basic"))
        #expect(!HTTP.hasAuthScheme("", "dpop") && !HTTP.hasAuthScheme("dpo p", "dpop"))
        #expect(
            HTTP.trimmingOWS(" \ta b\t ") == "a b" && HTTP.trimmingOWS("ab") == "ab" && HTTP.trimmingOWS("  ") == "")
    }

    @Test("a header read in one pass gives what the HTTPFields subscript gives: one value, several joined, or nil")
    func headerLookup() {
        func request(_ fields: HTTPFields) -> Request {
            Request(
                head: HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/", headerFields: fields),
                body: RequestBody(buffer: ByteBuffer()))
        }
        let fields: [HTTPFields] = [
            [:], [.contentType: "application/json"],
            [.authorization: "Basic a", .contentType: "text/plain", .accept: "*/*"],
            HTTPFields([
                HTTPField(name: .accept, value: "a/b"), HTTPField(name: .contentType, value: "x/y"),
                HTTPField(name: .accept, value: "c/d"), HTTPField(name: .accept, value: "e/f"),
            ]),
        ]
        for headers in fields {
            for name in [HTTPField.Name.contentType, .accept, .authorization, .dpop] {
                #expect(HTTP.header(request(headers), name) == headers[name], "\(name) in \(headers)")
            }
        }
        #expect(HTTP.header(request(fields[3]), .accept) == "a/b, c/d, e/f")
    }

    @Test("Basic credentials are decoded strictly: padded standard base64 of UTF-8, nothing else")
    func basicCredentials() {
        func decode(_ text: String) -> String? { ClientAuthenticator.basicCredentials(text) }
        #expect(
            decode(Data("haapi-dcr-main:dcr-main-secret-change-me".utf8).base64EncodedString())
                == "haapi-dcr-main:dcr-main-secret-change-me")
        #expect(decode("YTpi") == "a:b")
        #expect(decode("YTo=") == "a:")
        #expect(decode("Og==") == ":")
        #expect(decode("w6k6Pz8+") == "é:??>")  // "+" of the standard alphabet
        #expect(decode("YT8/Og==") == "a??:")  // "/" of the standard alphabet
        for bad in [
            "", "YTo", "YTo==", "YT===", "Y===", "YTpi=", "w6k6Pz8-", "YT8_Og==", "YTo=YTo=", "YR==", "YTp=",
            " YTpi", "YTpi\n", "/w==",  // 0xFF alone is not UTF-8
        ] {
            #expect(decode(bad) == nil, "\(bad)")
        }
    }
}

@Suite("The single-use cache under concurrent requests")
struct ReplayCacheConcurrencyTests {
    @Test("from many tasks at once, each (jkt, jti) pair is accepted exactly once")
    func eachPairOnce() async {
        let cache = SingleUseCache(capacity: 10_000)
        let now = Date()
        // 8 tasks record the same 1,000 pairs, each in its own order: 1,000 acceptances in all, never more.
        let accepted = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var count = 0
                    for step in 0..<1_000 {
                        let pair = (step * (2 * task + 1)) % 1_000
                        let outcome = await cache.record(
                            jti: "jti-\(pair)", jkt: "key-\(pair % 7)", until: now.addingTimeInterval(60), now: now)
                        if outcome == .accepted { count += 1 }
                    }
                    return count
                }
            }
            return await group.reduce(0, +)
        }
        #expect(accepted == 1_000)
        #expect(await cache.count == 1_000)
    }
}
