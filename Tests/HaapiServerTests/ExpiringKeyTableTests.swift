import Testing

@testable import HaapiServer

/// The open-addressing table behind the DPoP replay cache, checked against a plain dictionary.
@Suite("Expiring key table")
struct ExpiringKeyTableTests {
    /// A deterministic generator, so a failure can be replayed from its seed.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test(
        "a small, crowded table agrees with a dictionary at every step: inserts, repeats, expiry sweeps, full",
        arguments: [1, 2, 3, 4]
    )
    func matchesModel(seed: UInt64) {
        var random = SplitMix(state: seed)
        // 100 keys in 128 slots: long runs that wrap around the end, and sweeps that move most keys.
        let table = ExpiringKeyTable(capacity: 100)
        var model: [UInt64: UInt32] = [:]
        // Just before the 20-bit expiry field wraps, so some expiries are stored past the wrap.
        var now: UInt32 = (1 << 20) * 1_700 - 90
        for _ in 0..<20_000 {
            if random.next() % 50 == 0 { now += UInt32(random.next() % 3) }
            // Model first: what a correct table holds at `now`.
            model = model.filter { $0.value > now }
            // Keys from a small range of top 44 bits, so repeats are frequent (the low 20 bits are ignored);
            // 0 included, which the table keeps as 1.
            let modelKey = max(random.next() % 400, 1)
            let key = (modelKey == 1 ? random.next() % 2 : modelKey) << 20 | random.next() % (1 << 20)
            let expiry = now + 1 + UInt32(random.next() % 20)
            let expected: ExpiringKeyTable.Outcome =
                model[modelKey] != nil ? .present : model.count >= 100 ? .full : .inserted
            let outcome = table.insert(key, expiry: expiry, now: now)
            #expect(outcome == expected, "key \(key) at \(now)")
            if expected == .inserted { model[modelKey] = expiry }
            #expect(table.count == model.count)
            if outcome != expected || table.count != model.count { return }
        }
    }

    @Test("a key stays until its own second, whatever was swept around it")
    func expiresAtItsSecond() {
        let table = ExpiringKeyTable(capacity: 10)
        let seven: UInt64 = 7 << 40
        let eight: UInt64 = 8 << 40
        #expect(table.insert(seven, expiry: 105, now: 100) == .inserted)
        #expect(table.insert(eight, expiry: 102, now: 100) == .inserted)
        #expect(table.insert(seven, expiry: 200, now: 101) == .present)
        #expect(table.insert(eight | 0xFFFF, expiry: 200, now: 101) == .present, "the low 20 bits do not count")
        // At 102 key 8 is gone; 7 keeps its first expiry, not the later one of the refused repeat.
        #expect(table.insert(eight, expiry: 110, now: 102) == .inserted)
        #expect(table.insert(seven, expiry: 110, now: 104) == .present)
        #expect(table.insert(seven, expiry: 110, now: 105) == .inserted)
        #expect(table.count == 2)
    }

    @Test("an expiry past the 20-bit wrap is kept until its second; one beyond the horizon is refused")
    func expiryWrapAndHorizon() {
        let table = ExpiringKeyTable(capacity: 10)
        let now: UInt32 = (1 << 20) * 1_700 - 5
        #expect(table.insert(1 << 30, expiry: now + 10, now: now) == .inserted)
        #expect(table.insert(2 << 30, expiry: now + 2, now: now) == .inserted)
        // The sweep at now + 2 drops only the second key, although the first's stored 20 bits are smaller.
        #expect(table.insert(3 << 30, expiry: now + 20, now: now + 2) == .inserted)
        #expect(table.count == 2)
        #expect(table.insert(1 << 30, expiry: now + 30, now: now + 9) == .present)
        #expect(table.insert(1 << 30, expiry: now + 30, now: now + 10) == .inserted)
        #expect(table.insert(4 << 30, expiry: now + ExpiringKeyTable.horizon, now: now) == .full)
        #expect(table.insert(4 << 30, expiry: now + ExpiringKeyTable.horizon - 1, now: now) == .inserted)
    }

    @Test("full means full: a live key is never dropped to make room, and room returns as keys expire")
    func fullUntilExpiry() {
        let table = ExpiringKeyTable(capacity: 3)
        for key: UInt64 in 1...3 { #expect(table.insert(key << 32, expiry: 50, now: 10) == .inserted) }
        #expect(table.insert(4 << 32, expiry: 50, now: 10) == .full)
        for key: UInt64 in 1...3 { #expect(table.insert(key << 32, expiry: 60, now: 49) == .present) }
        #expect(table.insert(4 << 32, expiry: 60, now: 50) == .inserted)
        #expect(table.count == 1)
    }
}
