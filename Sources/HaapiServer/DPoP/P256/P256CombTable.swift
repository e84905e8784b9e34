/// Multiples of one P-256 point laid out so that `k·P` takes one mixed addition per `window` bits of `k`
/// and no doubling: row `i` holds `d·2^(window·i)·P` for d = 1…2^(window−1) (affine), and `k` is written in
/// signed base-2^window digits from −2^(window−1) to 2^(window−1) (a negative digit uses the row's point
/// negated). Enough rows for the recoding's carry out of the top.
///
/// A key's table (window 5: 52 rows of 16 points, 53 KiB) costs about a dozen BoringSSL signature checks to
/// build (`haapi-bench verify` prints the figure), so it pays for a key that signs again and again, as a
/// DPoP client's key signs every request. The generator's (window 7: 37 rows of 64, 151 KiB) is built once
/// per process.
struct P256CombTable: Sendable {
    let window: Int
    let rows: Int
    private let perRow: Int
    private let points: [P256Affine]

    /// The table of `point` for a window of 2 to 7 bits; nil for another window, or if a multiple came out
    /// at infinity, which a point on the curve rules out.
    init?(_ point: P256Affine, window: Int = 5) {
        guard (2...7).contains(window) else { return nil }
        self.window = window
        perRow = 1 << (window - 1)
        // ⌈256/window⌉ digits, and one more when the top digit's bits plus a carry can exceed perRow.
        let digits = (256 + window - 1) / window
        let topBits = 256 - window * (digits - 1)
        rows = (1 << topBits) > perRow ? digits + 1 : digits
        // Row by row, so that only one row is ever held in Jacobian form: the multiples d·B of the row's
        // base B by mixed additions, and 2·(perRow·B), the next row's base, all made affine with one inversion.
        var points: [P256Affine] = []
        points.reserveCapacity(rows * perRow)
        var row: [P256Jacobian] = []
        row.reserveCapacity(perRow + 1)
        var base = point
        for _ in 0..<rows {
            row.removeAll(keepingCapacity: true)
            var multiple = P256Jacobian(base)
            row.append(multiple)
            for _ in 1..<perRow {
                multiple = multiple.adding(base)
                row.append(multiple)
            }
            row.append(multiple.doubled())
            // A point on the curve has the group's order n, an odd prime above 2⁸, so no d·2ʲ·P is at infinity.
            guard let affine = P256Jacobian.normalize(row), let next = affine.last else { return nil }
            points.append(contentsOf: affine.dropLast())
            base = next
        }
        self.points = points
    }

    /// The generator's table, built on first use (once per process).
    static let generator = P256CombTable(.generator, window: 7)

    /// `k·P` for any 256-bit `k` (reduced or not: the digits add up to `k` exactly).
    func multiply(_ k: U256) -> P256Jacobian {
        var accumulator = P256Jacobian.infinity
        var digits = SignedDigits(k, window: window)
        for row in 0..<rows {
            accumulator = add(digits.next(), row: row, to: accumulator)
        }
        return accumulator
    }

    /// `a·G + b·Q`, G's table being `generatorTable` and Q's this one: the check at the heart of ECDSA.
    func multiply(_ b: U256, plus a: U256, times generatorTable: P256CombTable) -> P256Jacobian {
        var accumulator = generatorTable.multiply(a)
        var digits = SignedDigits(b, window: window)
        for row in 0..<rows {
            accumulator = add(digits.next(), row: row, to: accumulator)
        }
        return accumulator
    }

    /// `accumulator + digit·2^(window·row)·P`, `digit` in −perRow…perRow.
    @inline(__always)
    private func add(_ digit: Int, row: Int, to accumulator: P256Jacobian) -> P256Jacobian {
        guard digit != 0 else { return accumulator }
        let entry = points[row * perRow + abs(digit) - 1]
        return accumulator.adding(digit < 0 ? entry.negated : entry)
    }
}

extension P256CombTable: CustomStringConvertible {
    /// The shape, not the 520 to 2,368 points (test failures print their values).
    var description: String { "P256CombTable(window: \(window), rows: \(rows))" }
}

/// A 256-bit number as signed base-2^window digits from −2^(window−1) to 2^(window−1), least significant
/// first, produced one at a time: a digit above 2^(window−1) becomes digit − 2^window and carries one.
struct SignedDigits {
    private let value: U256
    private let window: Int
    private var offset = 0
    private var carry = 0

    init(_ value: U256, window: Int) {
        self.value = value
        self.window = window
    }

    mutating func next() -> Int {
        let sum = value.bits(at: offset, count: window) + carry
        offset += window
        let half = 1 << (window - 1)
        if sum > half {
            carry = 1
            return sum - (1 << window)
        }
        carry = 0
        return sum
    }
}
