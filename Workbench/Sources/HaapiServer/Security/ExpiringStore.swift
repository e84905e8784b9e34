import Foundation

/// An in-memory map whose entries expire, with a hard cap on how many it keeps.
///
/// Every store that a request can grow without signing in (challenges, flows, replay caches, sessions,
/// rate-limit counters) is one of these, so a flood of requests costs a fixed amount of memory and each
/// request a constant amount of work:
/// - lookups and inserts are dictionary operations;
/// - expired entries are dropped from the front of an insertion-ordered queue as new ones arrive
///   (amortised O(1): each entry is queued and dropped once);
/// - at capacity the oldest entry goes first, so the newest callers always get an entry.
///
/// Not thread-safe on its own: it lives inside an actor.
struct ExpiringStore<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        var value: Value
        var expiresAt: Date
        /// Bumped when the key is written again, so a stale queue slot does not evict a newer write.
        var generation: UInt64
    }

    private struct Slot: Sendable {
        let key: Key
        let generation: UInt64
    }

    let capacity: Int
    private var entries: [Key: Entry] = [:]
    private var order: [Slot] = []
    private var head = 0
    private var nextGeneration: UInt64 = 0
    /// Queue slots visited and moved so far (by sweeps, evictions and compactions): the work the bound costs,
    /// counted so a test can show it stays O(1) a write whatever the store holds.
    private(set) var work = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    /// Live entries (expired ones not yet swept may be counted until the next write).
    var count: Int { entries.count }

    /// The value for `key`, unless it has expired.
    func value(for key: Key, now: Date) -> Value? {
        guard let entry = entries[key], entry.expiresAt > now else { return nil }
        return entry.value
    }

    /// Stores `value` until `expiresAt`, evicting expired entries and, at capacity, the oldest ones.
    mutating func set(_ value: Value, for key: Key, expiresAt: Date, now: Date) {
        sweep(now: now)
        if entries[key] == nil {
            while entries.count >= capacity, evictOldest() {}
        }
        nextGeneration &+= 1
        entries[key] = Entry(value: value, expiresAt: expiresAt, generation: nextGeneration)
        order.append(Slot(key: key, generation: nextGeneration))
        compactIfNeeded()
    }

    enum Insertion: Equatable { case inserted, present, full }

    /// Stores `value` only if `key` has no live entry and there is room: for stores where evicting a live
    /// entry would be unsafe (a replay cache forgetting a proof id would accept the proof again), a full
    /// store refuses instead.
    mutating func insertIfAbsent(_ value: Value, for key: Key, expiresAt: Date, now: Date) -> Insertion {
        sweep(now: now)
        if let entry = entries[key], entry.expiresAt > now { return .present }
        guard entries[key] != nil || entries.count < capacity else { return .full }
        nextGeneration &+= 1
        entries[key] = Entry(value: value, expiresAt: expiresAt, generation: nextGeneration)
        order.append(Slot(key: key, generation: nextGeneration))
        compactIfNeeded()
        return .inserted
    }

    /// Changes a live entry in place; returns the new value, or nil when there is none.
    @discardableResult
    mutating func update(_ key: Key, now: Date, _ change: (inout Value) -> Void) -> Value? {
        guard var entry = entries[key], entry.expiresAt > now else { return nil }
        change(&entry.value)
        entries[key] = entry
        return entry.value
    }

    /// Removes and returns a live entry (single-use values: challenges, codes).
    @discardableResult
    mutating func remove(_ key: Key, now: Date) -> Value? {
        guard let entry = entries.removeValue(forKey: key), entry.expiresAt > now else { return nil }
        return entry.value
    }

    /// Every live value; O(n), for the admin listing only.
    func liveValues(now: Date) -> [Value] {
        entries.values.filter { $0.expiresAt > now }.map(\.value)
    }

    /// Drops queued entries that have expired, oldest first, stopping at the first live one.
    private mutating func sweep(now: Date) {
        while head < order.count {
            work += 1
            let slot = order[head]
            guard let entry = entries[slot.key], entry.generation == slot.generation else {
                head += 1  // removed or rewritten since: nothing to do for this slot
                continue
            }
            guard entry.expiresAt <= now else { return }
            entries[slot.key] = nil
            head += 1
        }
    }

    /// Evicts the oldest live entry; false when the queue is empty.
    private mutating func evictOldest() -> Bool {
        while head < order.count {
            work += 1
            let slot = order[head]
            head += 1
            if let entry = entries[slot.key], entry.generation == slot.generation {
                entries[slot.key] = nil
                return true
            }
        }
        return false
    }

    /// The queue's consumed prefix is dropped once it is most of the array, keeping it O(capacity).
    private mutating func compactIfNeeded() {
        if head > 1024, head * 2 > order.count {
            work += order.count - head
            order.removeFirst(head)
            head = 0
        }
        // Rewrites of live keys leave stale slots behind; bound the queue to a multiple of the live set.
        if order.count - head > 4 * max(capacity, entries.count) {
            work += order.count - head
            order = order[head...].filter { entries[$0.key]?.generation == $0.generation }
            head = 0
        }
    }
}
