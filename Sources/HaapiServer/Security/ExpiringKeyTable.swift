import Foundation  // calloc and free

/// A set of keys, each kept until the second it expires in: the storage of ``SingleUseCache``.
///
/// Why not `Set` plus a list per expiry second: that costs 20–40 bytes a key, plus a rehash that briefly
/// holds the old and the new table. Here a key costs one 8-byte slot of an open-addressing table sized once
/// for `capacity`:
/// - the table never grows, so there is no rehash, and its size is known from the start;
/// - it is allocated with `calloc`, so the kernel hands out zero pages as they are first written: an idle
///   server does not pay for the capacity it may need under load;
/// - a slot holds the top 44 bits of the key and the low 20 bits of its expiry second, so expiry needs no
///   list: a sweep, at most once per second of time and only when some key is due, walks the table once
///   and drops the keys whose second has passed (a table of `singleUseCapacity` slots is 128 KiB).
///
/// The 44 bits: two keys that share them are one key here, which can only make a fresh key look present
/// (a refusal), never a present one look fresh; with 10,000 keys a fresh key meets one in about 1.8 billion. The 20 bits: an expiry is told apart from `now` as long as it is less than
/// ``horizon`` seconds (six days) ahead; a key that must be kept longer is refused as `full`.
///
/// Linear probing with at most `capacity` keys in a table at least 5/4 of that, so a lookup ends at an empty
/// slot after a few probes (about nine at the fullest). The slot of a key comes from a multiply-shift
/// hash with an odd multiplier drawn at random for each table: whoever chooses the keys (a client chooses its
/// `jti`) cannot line them up in one run of slots without knowing the multiplier.
///
/// Not thread-safe: the actor that owns it serialises every call.
final class ExpiringKeyTable {
    enum Outcome: Equatable { case inserted, present, full }

    /// How far ahead of `now` an expiry may be, in seconds.
    static let horizon: UInt32 = 1 << 19

    let capacity: Int
    /// Keys not yet swept; every key whose second has passed is gone once ``sweep(now:)`` has run.
    private(set) var count = 0
    /// Each slot: 0 when empty, else the key's top 44 bits (never all zero) and its expiry's low 20 bits.
    private let slots: UnsafeMutablePointer<UInt64>
    private let fromCalloc: Bool
    private let mask: Int
    private let shift: UInt64
    private let multiplier: UInt64
    /// No key expires before this second, so a sweep before it has nothing to drop.
    private var earliestExpiry = UInt32.max

    private static let expiryBits: UInt64 = 20
    private static let expiryMask: UInt64 = 1 << expiryBits - 1

    init(capacity: Int) {
        self.capacity = min(max(capacity, 1), 1 << 40)
        var bits = 1
        while (1 << bits) < self.capacity + self.capacity / 4 + 1 { bits += 1 }
        let count = 1 << bits
        mask = count - 1
        shift = UInt64(64 - bits)
        multiplier = UInt64.random(in: 1...UInt64.max) | 1
        // calloc, not allocate and zero-fill: filling would touch every page now. Should calloc fail, the
        // allocation Swift makes instead fails the way any other would.
        if let zeroed = calloc(count, MemoryLayout<UInt64>.stride) {
            slots = zeroed.bindMemory(to: UInt64.self, capacity: count)
            fromCalloc = true
        } else {
            slots = UnsafeMutablePointer<UInt64>.allocate(capacity: count)
            slots.initialize(repeating: 0, count: count)
            fromCalloc = false
        }
    }

    deinit {
        if fromCalloc { free(slots) } else { slots.deallocate() }
    }

    /// Inserts `key` until the second `expiry` unless it is present (then it keeps its own expiry), the table
    /// holds `capacity` keys, or `expiry` is ``horizon`` or more ahead of `now`. Sweeps first when a key is due.
    func insert(_ key: UInt64, expiry: UInt32, now: UInt32) -> Outcome {
        sweep(now: now)
        let tag = max(key >> Self.expiryBits, 1)
        var slot = home(of: tag)
        while slots[slot] != 0 {
            if slots[slot] >> Self.expiryBits == tag { return .present }
            slot = (slot + 1) & mask
        }
        guard count < capacity, expiry > now, expiry - now < Self.horizon else { return .full }
        slots[slot] = tag << Self.expiryBits | UInt64(expiry) & Self.expiryMask
        count += 1
        earliestExpiry = min(earliestExpiry, expiry)
        return .inserted
    }

    /// Drops every key whose second is `now` or earlier.
    ///
    /// One pass over the slots in probe order, starting just after a slot that is empty (the table is never
    /// full, and no key's probe run crosses an empty slot). Once a key of a run of occupied slots has been
    /// dropped, each later key of that run is taken out and put back from its home slot: it lands at or
    /// before where it was, since its old slot is free again, so every key stays reachable from its home
    /// with no gap in between, without tombstones. Keys of a run where nothing was dropped stay where they
    /// are: every slot between their home and them is still taken. (Putting every key back cost twice as
    /// long with most runs untouched, since a sweep drops about one second's keys of sixty.)
    func sweep(now: UInt32) {
        guard now >= earliestExpiry else { return }
        var start = 0
        while slots[start] != 0 { start += 1 }
        var earliest = UInt32.max
        var slot = start
        // Put back happens only at or before the slot being read, so a slot ahead still holds what it held
        // before the sweep: an empty one there ends a run of the original table.
        var droppedInRun = false
        for _ in 0..<mask {
            slot = (slot + 1) & mask
            let value = slots[slot]
            guard value != 0 else {
                droppedInRun = false
                continue
            }
            // Seconds from now to the expiry, modulo 2^20: under the horizon for a key still due later.
            let ahead = UInt32(truncatingIfNeeded: (value &- UInt64(now)) & Self.expiryMask)
            guard ahead != 0, ahead < Self.horizon else {
                slots[slot] = 0
                count -= 1
                droppedInRun = true
                continue
            }
            earliest = min(earliest, now &+ ahead)
            guard droppedInRun else { continue }
            slots[slot] = 0
            var target = home(of: value >> Self.expiryBits)
            while slots[target] != 0 { target = (target + 1) & mask }
            slots[target] = value
        }
        earliestExpiry = earliest
    }

    /// Multiply-shift: the top bits of the tag × an odd random multiplier.
    private func home(of tag: UInt64) -> Int {
        Int(truncatingIfNeeded: (tag &* multiplier) >> shift)
    }
}
