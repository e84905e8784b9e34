import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiRawClient
import Testing

@testable import HaapiServer

/// Issue 12, item 10: what unauthenticated requests can make the server keep is bounded in count and in
/// size, expires, and costs the same per request when the stores are full.
@Suite("Floods of unauthenticated requests", .timeLimit(.minutes(3)))
struct FloodTests {
    /// Sends `count` requests with `concurrency` in flight, `batch` at a time; `measure` runs after each batch.
    static func flood(
        count: Int, concurrency: Int = 8, batch: Int = 1000, after measure: @Sendable () async -> Void = {},
        _ send: @escaping @Sendable (Int) async throws -> Void
    ) async throws {
        var next = 0
        while next < count {
            let end = min(next + batch, count)
            let range = next..<end
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<concurrency {
                    group.addTask {
                        for index in stride(from: range.lowerBound + lane, to: range.upperBound, by: concurrency) {
                            try await send(index)
                        }
                    }
                }
                try await group.waitForAll()
            }
            await measure()
            next = end
        }
    }

    @Test(
        "20 000 challenge requests (passkey sign-in and attestation) keep each store at its bound, at a flat cost per request"
    )
    func challengeFlood() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        let base = server.base
        let work = LockedValue([Int]())
        let measure: @Sendable () async -> Void = {
            let done =
                await server.server.attestation.challenges.work + server.server.relyingParty.passkeyChallenges.work
            work.withLock { $0.append(done) }
        }
        let send: @Sendable (Int) async throws -> Void = { index in
            let path = index.isMultiple(of: 2) ? "/authentication_initialize" : "/oauth/token/cat?client_id=haapi-demo"
            let response = try await RawHTTP.send("GET", base + path)
            guard response.status == 200 else {
                throw UnexpectedResponse("request \(index): \(response.status) \(response.text)")
            }
        }
        try await Self.flood(count: 20_000, after: measure, send)
        // Both stores at their bound (10 000 each) after about 20 000 requests...
        #expect(await server.server.attestation.challenges.count <= 10_000)
        // The flood did fill it: the bound was what held.
        #expect(await server.server.relyingParty.passkeyChallenges.count >= 9_000)
        // ...and a batch after they filled up cost the stores what a batch before did: a few slots visited a
        // request (a sweep of the whole store per request would be thousands). Counted, not timed.
        let totals = work.get()
        let perBatch = zip(totals, [0] + totals).map { $0 - $1 }
        #expect(perBatch.allSatisfy { $0 <= 4 * 1_000 }, "slots visited per batch of 1,000 requests: \(perBatch)")

        // The newest challenges are the ones kept: a sign-in started now still works.
        let fresh = try await RawHTTP.send("GET", base + "/authentication_initialize")
        #expect(fresh.status == 200)
    }

    @Test(
        "in process: inserting into full stores costs what inserting into empty ones does (O(1)), and they stay bounded"
    )
    func storesAreConstantTime() async throws {
        let now = Date()
        // The work each write costs the store (queue slots visited or moved), counted: 5,000 writes into an
        // empty store, then 5,000 into one held full at its capacity by 20,000 earlier writes.
        var fresh = ExpiringStore<String, Int>(capacity: 10_000)
        for index in 0..<5_000 { fresh.set(index, for: "a\(index)", expiresAt: now.addingTimeInterval(60), now: now) }
        let empty = fresh.work
        var store = fresh
        for index in 0..<20_000 { store.set(index, for: "b\(index)", expiresAt: now.addingTimeInterval(60), now: now) }
        let before = store.work
        for index in 0..<5_000 { store.set(index, for: "c\(index)", expiresAt: now.addingTimeInterval(60), now: now) }
        let full = store.work - before
        #expect(store.count == 10_000)
        // Each write into the full store evicts one entry and looks at a slot or two; compacting the queue now
        // and then moves what is left of it: amortised, a few slots a write, never a pass over the store.
        #expect(full <= 4 * 5_000, "slots visited for 5,000 writes into a full store: \(full) (empty: \(empty))")
        #expect(empty <= 2 * 5_000, "into an empty one: \(empty)")
        // The oldest went first; the newest are there; expired entries are gone after their time.
        #expect(store.value(for: "a0", now: now) == nil && store.value(for: "c4999", now: now) == 4_999)
        store.set(1, for: "late", expiresAt: now.addingTimeInterval(120), now: now.addingTimeInterval(61))
        #expect(store.count == 1)

        let flows = FlowStore(capacity: 1_000)
        for index in 0..<5_000 {
            await flows.insert(
                FlowSession(
                    id: "f\(index)", clientID: "c", jkt: "k", redirectURI: "app://x", scope: [], state: nil, nonce: nil,
                    codeChallenge: nil, expiresAt: now.addingTimeInterval(900),
                    login: LoginConfiguration(id: "l", steps: [.authenticator("password")])), now: now)
        }
        #expect(await flows.count == 1_000)
        #expect(await flows.session("f4999", now: now) != nil)
    }

    @Test(
        "the single-use cache refuses new ids when full rather than forget a live one, and recovers as entries expire"
    )
    func replayCacheFull() async throws {
        let cache = SingleUseCache(capacity: 100)
        let now = Date()
        for index in 0..<100 {
            #expect(
                await cache.record(jti: "j\(index)", jkt: "k", until: now.addingTimeInterval(60), now: now) == .accepted
            )
        }
        #expect(await cache.record(jti: "j0", jkt: "k", until: now.addingTimeInterval(60), now: now) == .replayed)
        #expect(await cache.record(jti: "new", jkt: "k", until: now.addingTimeInterval(60), now: now) == .full)
        // Still refused as a replay while it is live: nothing was forgotten to make room.
        #expect(await cache.record(jti: "j99", jkt: "k", until: now.addingTimeInterval(60), now: now) == .replayed)
        let later = now.addingTimeInterval(61)
        #expect(await cache.record(jti: "new", jkt: "k", until: later.addingTimeInterval(60), now: later) == .accepted)
        #expect(await cache.count == 1)
        // One request cannot make it keep a long id.
        #expect(
            await cache.record(
                jti: String(repeating: "x", count: 5_000), jkt: "k", until: later.addingTimeInterval(60), now: later)
                == .replayed)
    }

    @Test("the single-use cache forgets each id at its own second, and keeps ids of different keys apart")
    func replayCacheExpiry() async {
        let cache = SingleUseCache()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(await cache.record(jti: "a", jkt: "k1", until: now.addingTimeInterval(10), now: now) == .accepted)
        #expect(await cache.record(jti: "b", jkt: "k1", until: now.addingTimeInterval(60), now: now) == .accepted)
        // The same jti under another key is another proof.
        #expect(await cache.record(jti: "a", jkt: "k2", until: now.addingTimeInterval(60), now: now) == .accepted)
        #expect(await cache.record(jti: "a", jkt: "k1", until: now.addingTimeInterval(10), now: now) == .replayed)
        let later = now.addingTimeInterval(11)
        #expect(await cache.count == 3)
        // "a" under k1 has expired; the other two are still live and still refused.
        #expect(await cache.record(jti: "a", jkt: "k1", until: later.addingTimeInterval(60), now: later) == .accepted)
        #expect(await cache.record(jti: "b", jkt: "k1", until: later.addingTimeInterval(60), now: later) == .replayed)
        #expect(await cache.record(jti: "a", jkt: "k2", until: later.addingTimeInterval(60), now: later) == .replayed)
        #expect(await cache.count == 3)
        // Recorded again at `later`, "a" under k1 lives until later + 60, past b's second.
        let end = now.addingTimeInterval(62)
        #expect(await cache.record(jti: "a", jkt: "k1", until: end.addingTimeInterval(60), now: end) == .replayed)
        // b and a-under-k2 have expired: no longer replays, recorded anew.
        #expect(await cache.record(jti: "b", jkt: "k1", until: end.addingTimeInterval(60), now: end) == .accepted)
        #expect(await cache.record(jti: "a", jkt: "k2", until: end.addingTimeInterval(60), now: end) == .accepted)
        #expect(await cache.count == 3)
    }

    @Test("what one request can make the server keep is bounded in size: state, nonce, user names")
    func sizeOfOneRequest() async throws {
        let server = try await TestServer.shared.get()
        let device = try await AuthenticatorTests.device(server)
        let long = String(repeating: "s", count: 4_096)
        let state = try await device.authorize(extra: [("state", long)])
        #expect(state.status == 400 && state.text.contains("at most 512"))
        let nonce = try await device.authorize(extra: [("nonce", long)])
        #expect(nonce.status == 400)
        let repeated = try await device.authorize(extra: [("state", "a"), ("state", "b")])
        #expect(repeated.status == 400 && repeated.text.contains("repeated"))
        let rp = try await RawHTTP.send(
            "GET", server.base + "/registration_initialize?user_name=" + String(repeating: "u", count: 500))
        #expect(rp.status == 400)
        let login = try await device.startAuthenticator("approve")
        let approval = try await device.submit(login.json["actions"]?[0], [("userName", long)])
        #expect(approval.status == 400)
        #expect(await server.server.pendingApprovals(for: long).isEmpty)
    }
}
