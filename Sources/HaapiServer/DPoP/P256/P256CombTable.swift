/// Multiples of one P-256 point laid out so that `k·P` takes one mixed addition per four bits of `k` and
/// no doubling: row `i` holds `d·2⁴ⁱ·P` for d = 1…8 (affine), and `k` is written in signed base-16 digits
/// from −8 to 8 (a negative digit uses the row's point negated). 65 rows, because the recoding can carry
/// out of the top nibble: 520 points, 33 KiB.
///
/// Building one costs about as much as seven signature checks with it, so it pays for a key that signs
/// again and again (a DPoP client's key signs every request) and for the generator, built once.
struct P256CombTable: Sendable {
    static let rows = 65
    static let perRow = 8

    private let points: [P256Affine]

    /// The table of `point`; nil only if a multiple came out at infinity, which a point on the curve rules out.
    init?(_ point: P256Affine) {
        var bases: [P256Jacobian] = []
        bases.reserveCapacity(Self.rows)
        var base = P256Jacobian(point)
        for _ in 0..<Self.rows {
            bases.append(base)
            base = base.doubled().doubled().doubled().doubled()
        }
        // A point on the curve has the group's order n, an odd prime above 8, so no d·2⁴ⁱ·P here is at infinity.
        guard let affineBases = P256Jacobian.normalize(bases) else { return nil }
        var multiples: [P256Jacobian] = []
        multiples.reserveCapacity(Self.rows * Self.perRow)
        for affine in affineBases {
            var multiple = P256Jacobian(affine)
            multiples.append(multiple)
            for _ in 2...Self.perRow {
                multiple = multiple.adding(affine)
                multiples.append(multiple)
            }
        }
        guard let points = P256Jacobian.normalize(multiples) else { return nil }
        self.points = points
    }

    /// The generator's table, built on first use (once per process).
    static let generator = P256CombTable(.generator)

    /// `k·P` for any 256-bit `k` (reduced or not: the digits add up to `k` exactly).
    func multiply(_ k: U256) -> P256Jacobian {
        var accumulator = P256Jacobian.infinity
        var digits = SignedDigits(k)
        for row in 0..<Self.rows {
            accumulator = add(digits.next(), row: row, to: accumulator)
        }
        return accumulator
    }

    /// `a·G + b·Q`, G's table being `generatorTable` and Q's this one: the check at the heart of ECDSA.
    func multiply(_ b: U256, plus a: U256, times generatorTable: P256CombTable) -> P256Jacobian {
        var accumulator = P256Jacobian.infinity
        var digitsA = SignedDigits(a)
        var digitsB = SignedDigits(b)
        for row in 0..<Self.rows {
            accumulator = generatorTable.add(digitsA.next(), row: row, to: accumulator)
            accumulator = add(digitsB.next(), row: row, to: accumulator)
        }
        return accumulator
    }

    /// `accumulator + digit·2⁴ʳᵒʷ·P`, `digit` in −8…8.
    @inline(__always)
    private func add(_ digit: Int, row: Int, to accumulator: P256Jacobian) -> P256Jacobian {
        guard digit != 0 else { return accumulator }
        let entry = points[row * Self.perRow + abs(digit) - 1]
        return accumulator.adding(digit < 0 ? entry.negated : entry)
    }
}

/// A 256-bit number as 65 signed base-16 digits from −8 to 8, least significant first, produced one at a
/// time: a nibble above 8 becomes nibble − 16 and carries one into the next.
struct SignedDigits {
    private let value: U256
    private var index = 0
    private var carry = 0

    init(_ value: U256) {
        self.value = value
    }

    mutating func next() -> Int {
        let sum = value.nibble(index) + carry
        index += 1
        if sum > 8 {
            carry = 1
            return sum - 16
        }
        carry = 0
        return sum
    }
}
