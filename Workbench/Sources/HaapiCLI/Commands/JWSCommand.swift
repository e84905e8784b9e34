import ArgumentParser
import Foundation
@_spi(Tooling) import HaapiDriver

struct JWSCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jws",
        abstract: "Sign and verify compact JWS (ES256/384/512, RS256/384/512, PS256/384/512, HS256/384/512).",
        discussion: HelpExamples.discussion(
            "", "echo '{\"sub\":\"demouser\"}' | haapi jws sign --key key.jwk --alg ES256",
            "haapi jws verify --key key.jwk --alg ES256 \"$JWS\""),
        subcommands: [Sign.self, Verify.self]
    )

    struct Sign: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign standard input (the payload) and print the compact JWS.",
            discussion: HelpExamples.discussion(
                "", "echo '{\"sub\":\"demouser\"}' | haapi jws sign --key key.jwk --alg ES256",
                "printf 'payload' | haapi jws sign --key secret.jwk --alg HS256 --header '{\"kid\":\"k1\"}'"))

        @Option(name: .long, help: "Private (or oct) JWK file.")
        var key: String

        @Option(name: .long, help: "Algorithm; defaults to the JWK's alg, else the key's natural one.")
        var alg: String?

        @Option(name: .long, help: "Extra protected header members, as a JSON object.")
        var header: String?

        func run() throws {
            do {
                let jwk = try KeyFile.loadJWK(at: key)
                let algorithm = try alg.map(JWSCommand.algorithm)
                var extra = JSONObject()
                if let header {
                    guard case .object(let object) = try JSONParser().parse(header) else {
                        throw ValidationError("--header must be a JSON object")
                    }
                    extra = object
                }
                let payload = FileHandle.standardInput.readDataToEndOfFile()
                print(try JWS.sign(payload: payload, header: extra, signer: jwk.signer(algorithm: algorithm)))
            } catch let error as ValidationError {
                throw error
            } catch let failure as CLIFailure {
                throw failure
            } catch {
                throw CLIFailure("\(error)", code: ExitCodes.dataError)
            }
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify a compact JWS and print its payload; exits 1 when the signature does not verify.",
            discussion: HelpExamples.discussion("", "haapi jws verify --key key.jwk --alg ES256 \"$JWS\""))

        @Option(name: .long, help: "Public, private or oct JWK file.")
        var key: String

        @Option(name: .long, help: "An allowed algorithm; repeat for more (at least one).")
        var alg: [String]

        @Argument(help: "The compact JWS.")
        var token: String

        func validate() throws {
            guard !alg.isEmpty else {
                throw ValidationError("give at least one --alg; a token never chooses its own algorithm")
            }
        }

        func run() throws {
            do {
                let jwk = try KeyFile.loadJWK(at: key)
                let allowed = Set(try alg.map(JWSCommand.algorithm))
                let jws = try CompactJWS(parsing: token)
                try jws.verify(with: jwk, allowedAlgorithms: allowed)
                print(String(decoding: jws.payload, as: UTF8.self))
            } catch let error as JOSEError {
                throw CLIFailure("the JWS does not verify: \(error)", code: ExitCodes.failure)
            } catch let error as ValidationError {
                throw error
            } catch let failure as CLIFailure {
                throw failure
            } catch {
                throw CLIFailure("\(error)", code: ExitCodes.dataError)
            }
        }
    }

    static func algorithm(_ name: String) throws -> JWSAlgorithm {
        guard let algorithm = JWSAlgorithm(rawValue: name.uppercased()) else {
            throw ValidationError(
                "unknown algorithm \(name); use one of \(JWSAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        return algorithm
    }
}
