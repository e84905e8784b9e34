import ArgumentParser
import Crypto
import Foundation
import HaapiServer

/// `haapi-bench verify`: one ES256 signature check by BoringSSL (swift-crypto) against one by the dev
/// server's per-key tables (`P256TableVerifier`), same key, same digests, in one run; and what a key's
/// table costs to build (the generator's, built once per process, not counted). A ratio, like every figure this tool prints: the machine's speed cancels out.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Time an ES256 signature check: BoringSSL against the server's per-key tables.")

    @Option(name: .long, help: "Checks per side (each side checks every signature of a set of 256 once per round).")
    var checks = 20_000

    func run() throws {
        guard checks > 0, checks <= 10_000_000 else { throw ValidationError("--checks must be between 1 and 10000000") }
        let privateKey = P256.Signing.PrivateKey()
        let publicKey = privateKey.publicKey
        let digests = (0..<256).map { SHA256.hash(data: Data("message \($0)".utf8)) }
        let signatures = try digests.map { try privateKey.signature(for: $0) }
        let raw = signatures.map(\.rawRepresentation)
        let point = publicKey.x963Representation

        // Another key's verifier first, so that the generator's table (built once per process) is not
        // counted in this key's build.
        let other = P256.Signing.PrivateKey().publicKey.x963Representation
        _ = P256TableVerifier(x: other.dropFirst().prefix(32), y: other.suffix(32))
        let buildStart = DispatchTime.now().uptimeNanoseconds
        guard let tables = P256TableVerifier(x: point.dropFirst().prefix(32), y: point.suffix(32)) else {
            throw ValidationError("the key was refused")
        }
        let build = Double(DispatchTime.now().uptimeNanoseconds - buildStart) / 1000

        var boringValid = 0
        var tableValid = 0
        let boring = Self.microseconds(checks) { index in
            if publicKey.isValidSignature(signatures[index % 256], for: digests[index % 256]) { boringValid += 1 }
        }
        let ours = Self.microseconds(checks) { index in
            if tables.isValidSignature(raw[index % 256], for: digests[index % 256]) { tableValid += 1 }
        }
        guard boringValid == checks, tableValid == checks else {
            throw ValidationError("a valid signature was refused (BoringSSL \(boringValid), tables \(tableValid))")
        }
        print(String(format: "BoringSSL check     %8.2f µs", boring))
        print(String(format: "per-key tables      %8.2f µs", ours))
        print(String(format: "tables ÷ BoringSSL  %8.2fx", ours / boring))
        print(String(format: "table build         %8.1f µs (%.1f BoringSSL checks)", build, build / boring))
    }

    /// Microseconds per call of `body` over `count` calls.
    private static func microseconds(_ count: Int, _ body: (Int) -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        for index in 0..<count { body(index) }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1000 / Double(count)
    }
}
