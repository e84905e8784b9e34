import ArgumentParser
@_spi(Tooling) import HaapiDriver

struct JWKCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jwk",
        abstract: "Work with JSON Web Keys.",
        discussion: HelpExamples.discussion("", "haapi jwk thumbprint dpop.jwk"),
        subcommands: [Thumbprint.self]
    )

    struct Thumbprint: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the RFC 7638 SHA-256 thumbprint of a JWK.",
            discussion: HelpExamples.discussion(
                "", "haapi jwk thumbprint dpop.jwk",
                "curl -s http://localhost:8080/oauth/jwks | jq -c '.keys[0]' | haapi jwk thumbprint -"))

        @Argument(help: "A JWK file, or - for standard input.")
        var file: String

        func run() throws {
            do {
                print(try KeyFile.loadJWK(at: file).thumbprint())
            } catch let failure as CLIFailure {
                throw failure
            } catch {
                throw CLIFailure("\(error)", code: ExitCodes.dataError)
            }
        }
    }
}
