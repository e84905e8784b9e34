import Foundation
import Testing

@testable import HaapiServer

/// The DPoP replay filter: a proof is accepted once and its replays never, it holds its budgeted rate for a
/// whole window and past it refuses with a time to retry, slices are freed as they expire, and fresh proofs
/// are rarely taken for replays.
@Suite("DPoP proof replay filter")
struct ProofReplayFilterTests {
    let now = Date(timeIntervalSince1970: 1_800_000_001)

    func due(
        _ filter: ProofReplayFilter, _ jti: String, jkt: String = "key", at now: Date
    ) async
        -> ProofReplayFilter.Outcome
    {
        await filter.record(jti: jti, jkt: jkt, until: now.addingTimeInterval(61), now: now)
    }

    @Test("a proof is accepted once; its replay is refused; the same jti of another key is another proof")
    func onceEach() async {
        let filter = ProofReplayFilter(window: 60)
        #expect(await due(filter, "a", at: now) == .accepted)
        #expect(await due(filter, "a", at: now) == .replayed)
        #expect(await due(filter, "a", jkt: "other", at: now) == .accepted)
        #expect(await due(filter, "b", at: now) == .accepted)
        // Replayed later in the window (the same iat, so the same due second): still refused.
        #expect(
            await filter.record(
                jti: "a", jkt: "key", until: now.addingTimeInterval(61), now: now.addingTimeInterval(50))
                == .replayed)
        // One request cannot make it keep a long id.
        #expect(await due(filter, String(repeating: "x", count: 5_000), at: now) == .replayed)
    }

    @Test("50,000 proofs, each replayed: no replay is ever accepted")
    func neverAcceptsAReplay() async {
        let filter = ProofReplayFilter(window: 60, proofsPerSecond: 20_000)
        var accepted = 0
        for index in 0..<50_000 where await due(filter, "jti-\(index)", jkt: "k\(index % 64)", at: now) == .accepted {
            accepted += 1
        }
        #expect(accepted >= 49_900)
        for index in 0..<50_000 {
            let outcome = await due(filter, "jti-\(index)", jkt: "k\(index % 64)", at: now)
            guard outcome == .replayed else {
                Issue.record("proof \(index) was \(outcome) on replay")
                return
            }
        }
    }

    @Test("with its slice full, fewer than 0.3 % of fresh proofs are taken for replays")
    func falseRefusals() async {
        let filter = ProofReplayFilter(window: 60, proofsPerSecond: 5_000)
        let perSlice = filter.proofsPerSlice
        for index in 0..<perSlice { _ = await due(filter, "fill-\(index)", at: now) }
        // Probing only (a refusal as full would be counted too): every probe is a fresh proof.
        var refused = 0
        let probes = 100_000
        for index in 0..<probes where await due(filter, "probe-\(index)", jkt: "probe-key", at: now) == .replayed {
            refused += 1
        }
        let rate = Double(refused) / Double(probes)
        #expect(rate < 0.003, "false refusal rate \(rate)")
    }

    @Test("past its budget a slice refuses with a time to retry; a proof made then is accepted")
    func overBudget() async {
        let filter = ProofReplayFilter(window: 60, proofsPerSecond: 10)
        for index in 0..<filter.proofsPerSlice { #expect(await due(filter, "p\(index)", at: now) == .accepted) }
        guard case .full(let retryAfter) = await due(filter, "one-more", at: now) else {
            Issue.record("not refused as full")
            return
        }
        #expect((1...Int(ProofReplayFilter.sliceSeconds)).contains(retryAfter))
        // Replays are still recognised while full.
        #expect(await due(filter, "p0", at: now) == .replayed)
        let later = now.addingTimeInterval(TimeInterval(retryAfter))
        #expect(await due(filter, "one-more", at: later) == .accepted)
        // A due second beyond two windows is no accepted proof's: refused.
        let far = await filter.record(jti: "far", jkt: "key", until: now.addingTimeInterval(10_000), now: now)
        #expect(far != .accepted)
    }

    @Test("slices are freed once all their proofs have expired; memory stays within the stated budget")
    func slicesExpire() async {
        let filter = ProofReplayFilter(window: 60)
        #expect(filter.sliceBytes == 256_000)
        #expect(filter.memoryBudget <= 8 * 1024 * 1024)
        for second in 0..<120 {
            let time = now.addingTimeInterval(TimeInterval(second))
            _ = await due(filter, "s\(second)", at: time)
        }
        // Proofs due within the next 61 s (plus the slice being filled) are all that is kept.
        let live = await filter.sliceCount
        #expect(live <= 61 / Int(ProofReplayFilter.sliceSeconds) + 2, "\(live) slices")
        let muchLater = now.addingTimeInterval(1_000)
        _ = await due(filter, "late", at: muchLater)
        #expect(await filter.sliceCount == 1)
    }

    @Test("a replay is refused whatever order requests reach the filter in and however the clock steps")
    func highWaterMark() async {
        let filter = ProofReplayFilter(window: 60)
        let expiry = now.addingTimeInterval(61)
        #expect(await filter.record(jti: "p", jkt: "key", until: expiry, now: now) == .accepted)
        // A request whose `now` was read long after (or a clock stepped forward) drops the proof's slice.
        let later = now.addingTimeInterval(200)
        #expect(await filter.record(jti: "q", jkt: "key", until: later.addingTimeInterval(61), now: later) == .accepted)
        // The replay's `now` was read before that request's (it waited for the actor), or the clock stepped
        // back: its proof still looks fresh to the verifier, and the filter must not take it.
        let replay = await filter.record(jti: "p", jkt: "key", until: expiry, now: now.addingTimeInterval(10))
        #expect(replay != .accepted)
        // Out of order inside the window: the replay with an earlier `now` than the first use is a replay.
        #expect(
            await filter.record(
                jti: "q", jkt: "key", until: later.addingTimeInterval(61), now: later.addingTimeInterval(-5))
                == .replayed)
        // Every second in between, in shuffled order: none of the replays is accepted.
        let seconds = Array(0..<300).shuffled()
        for second in seconds {
            let time = now.addingTimeInterval(TimeInterval(second))
            #expect(await filter.record(jti: "p", jkt: "key", until: expiry, now: time) != .accepted)
        }
    }

    @Test("from many tasks at once, each (jkt, jti) pair is accepted exactly once")
    func concurrent() async {
        let filter = ProofReplayFilter(window: 60)
        let now = self.now
        let accepted = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var count = 0
                    for step in 0..<1_000 {
                        let pair = (step * (2 * task + 1)) % 1_000
                        let outcome = await filter.record(
                            jti: "jti-\(pair)", jkt: "key-\(pair % 7)", until: now.addingTimeInterval(61), now: now)
                        if outcome == .accepted { count += 1 }
                    }
                    return count
                }
            }
            return await group.reduce(0, +)
        }
        #expect(accepted <= 1_000 && accepted >= 998)
    }
}
