import ArgumentParser
import Foundation
import HaapiDriver

/// `haapi-bench proofs`: DPoP proofs made in advance, one per line, for a load generator that cannot sign
/// (wrk's Lua has no ECDSA). Each proof has its own `jti` and `iat` = now, so the proofs stay acceptable for
/// the server's `iat` window (60 s by default) and each one is accepted exactly once, as a real client's
/// would be. scripts/bench.sh makes a fresh batch right before each load phase.
struct ProofsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proofs",
        abstract: "Print DPoP proofs (ES256, one key, a fresh jti each) for a load generator, one per line.")

    @Option(name: .long, help: "The URL the proofs are for (htu).")
    var htu: String

    @Option(name: .long, help: "The HTTP method (htm).")
    var method = "POST"

    @Option(name: .long, help: "How many proofs.")
    var count = 10_000

    @Option(name: .long, help: "Write them to this file instead of standard output.")
    var output: String?

    func run() throws {
        guard let url = URL(string: htu), url.scheme != nil else {
            throw ValidationError("--htu must be an absolute URL")
        }
        guard count > 0, count <= 2_000_000 else { throw ValidationError("--count must be between 1 and 2000000") }
        let dpop = Dpop(key: SoftwareP256SigningKey())
        var text = ""
        text.reserveCapacity(count * 600)
        for _ in 0..<count {
            text += try dpop.createProof(httpMethod: method, url: url)
            text += "\n"
        }
        if let output {
            try Data(text.utf8).write(to: URL(fileURLWithPath: output))
        } else {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }
}
