import ArgumentParser
import Foundation
@_spi(Tooling) import HaapiDriver

/// `haapi-bench proofs`: DPoP proofs made in advance, one per line, for a load generator that cannot sign
/// (wrk's Lua has no ECDSA). Each proof has its own `jti`, so each is accepted exactly once, as a real
/// client's would be. For a long run, `--per-second` spreads the `iat`s over the run at the rate the server
/// is expected to answer, so the proofs sent late in the run are as fresh as a client's would be; `--keys`
/// makes that many clients, taking turns.
struct ProofsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proofs",
        abstract: "Print DPoP proofs (ES256, a fresh jti each) for a load generator, one per line.")

    @Option(name: .long, help: "The URL the proofs are for (htu).")
    var htu: String

    @Option(name: .long, help: "The HTTP method (htm).")
    var method = "POST"

    @Option(name: .long, help: "How many proofs.")
    var count = 10_000

    @Option(name: .long, help: "How many client keys, used in turn (one per proof, round robin).")
    var keys = 1

    @Option(
        name: .long,
        help: "Spread the iat over the run: proof i gets now + i / this many seconds (all now when absent).")
    var perSecond: Int?

    @Option(name: .long, help: "Write them to this file instead of standard output.")
    var output: String?

    func run() throws {
        guard let url = URL(string: htu), url.scheme != nil else {
            throw ValidationError("--htu must be an absolute URL")
        }
        guard count > 0, count <= 4_000_000 else { throw ValidationError("--count must be between 1 and 4000000") }
        guard (1...1_000).contains(keys) else { throw ValidationError("--keys must be between 1 and 1000") }
        if let perSecond, perSecond < 1 { throw ValidationError("--per-second must be positive") }
        let signers = (0..<keys).map { _ in SoftwareP256SigningKey() }
        let start = Date().timeIntervalSince1970.rounded(.down)
        // Chunks signed in parallel (signing is the slow part), then joined in order.
        let chunkSize = 20_000
        let chunkCount = (count + chunkSize - 1) / chunkSize
        let chunks = LockedValue([Int: String]())
        let failure = LockedValue<(any Error)?>(nil)
        let method = self.method
        let perSecond = self.perSecond
        let count = self.count
        DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
            var text = ""
            text.reserveCapacity(chunkSize * 600)
            do {
                for index in (chunk * chunkSize)..<min(count, (chunk + 1) * chunkSize) {
                    let offset = perSecond.map { Double(index / $0) } ?? 0
                    let dpop = Dpop(
                        key: signers[index % signers.count], clock: { Date(timeIntervalSince1970: start + offset) })
                    text += try dpop.createProof(httpMethod: method, url: url)
                    text += "\n"
                }
            } catch {
                failure.set(error)
            }
            chunks.withLock { $0[chunk] = text }
        }
        if let error = failure.get() { throw error }
        let all = chunks.withLock { parts in (0..<chunkCount).map { parts[$0] ?? "" }.joined() }
        if let output {
            try Data(all.utf8).write(to: URL(fileURLWithPath: output))
        } else {
            FileHandle.standardOutput.write(Data(all.utf8))
        }
    }
}
