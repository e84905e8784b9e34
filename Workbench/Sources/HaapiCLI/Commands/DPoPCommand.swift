import ArgumentParser
import Foundation
@_spi(Tooling) import HaapiDriver

struct DPoPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dpop",
        abstract: "Print one DPoP proof (RFC 9449) for a request.",
        discussion: HelpExamples.discussion(
            "The key file holds a private EC P-256 JWK; it is created with mode 0600 when missing.",
            "haapi dpop --method POST --url http://localhost:8080/oauth/token --key dpop.jwk",
            "haapi dpop --method GET --url https://api.example.com/me --access-token \"$AT\" --nonce \"$NONCE\" --key dpop.jwk",
            "haapi dpop --method POST --url http://localhost:8080/oauth/token --key dpop.jwk --iat -600   # a proof made ten minutes ago"
        )
    )

    @Option(name: .long, help: "HTTP method of the request (htm).")
    var method: String

    @Option(name: .long, help: "Request URL; query and fragment are left out of htu.")
    var url: String

    @Option(name: .long, parsing: .unconditional, help: "Server-provided DPoP nonce.")
    var nonce: String?

    @Option(name: .long, parsing: .unconditional, help: "Access token the request carries; its hash becomes ath.")
    var accessToken: String?

    @Option(name: .long, help: "Private EC P-256 JWK file.")
    var key: String

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds added to the current time for iat: -600 makes a proof ten minutes old, 600 one from the future (to test a server's iat window without waiting).",
            valueName: "seconds"))
    var iat: Int = 0

    func validate() throws {
        // A year either way is far past any server's window; the bound keeps the arithmetic plain.
        guard (-86_400 * 365...86_400 * 365).contains(iat) else {
            throw ValidationError("--iat is an offset in seconds from now, at most a year either way, not \(iat)")
        }
        guard let parsed = URL(string: url), parsed.scheme != nil, parsed.host != nil else {
            throw ValidationError("--url must be an absolute URL")
        }
        guard !method.isEmpty, method.allSatisfy({ $0.isLetter && $0.isASCII }) else {
            throw ValidationError("--method must be an HTTP method such as GET or POST")
        }
    }

    func run() throws {
        do {
            let (signingKey, created) = try KeyFile.loadOrCreateP256(at: key)
            if created { StandardStreams.printError("created key file \(key) (thumbprint \(signingKey.thumbprint))") }
            guard let target = URL(string: url) else { throw ValidationError("--url must be an absolute URL") }
            print(
                try Dpop(key: signingKey, clock: { [iat] in Date().addingTimeInterval(TimeInterval(iat)) }).createProof(
                    httpMethod: method, url: target, nonce: nonce, accessToken: accessToken))
        } catch let failure as KeyFile.Failure {
            throw CLIFailure(failure.description, code: ExitCodes.dataError)
        }
    }
}
