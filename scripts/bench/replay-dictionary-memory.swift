// The memory a plain dictionary of remembered DPoP proofs would take, against ProofReplayFilter (docs/BENCHMARKS.md,
// "What stays"). Run: swiftc -O scripts/bench/replay-dictionary-memory.swift -o /tmp/dictmem && /tmp/dictmem 1452000
// (1,452,000 = 12,000 accepted proofs a second, the sustained rate of scripts/bench.sh, for the 121 s a proof is kept).
import Foundation
// What a plain dictionary of remembered proofs would hold at the bench's sustained rate: one entry per accepted
// proof for the iat window (±60 s + 1): 12,000 proofs/s × 121 s. Key: thumbprint (43) + jti (22), value: due second.
func rssKiB() -> Int {
    let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }
    return 0
}
struct Pair: Hashable { let jkt: String; let jti: String }
let count = Int(CommandLine.arguments.dropFirst().first ?? "1452000") ?? 1_452_000
let before = rssKiB()
var table: [Pair: UInt32] = [:]
let jkt = String(repeating: "k", count: 43)
for index in 0..<count {
    // A 22-character jti, as clients send (16 random bytes in base64url); each a heap string, as received.
    let jti = String(format: "%022d", index)
    table[Pair(jkt: String(jkt.utf8.map { Character(UnicodeScalar($0)) }), jti: jti)] = UInt32(index)
}
let after = rssKiB()
print("entries \(table.count) rss growth \((after - before) / 1024) MiB, \((after - before) * 1024 / count) B/entry")
