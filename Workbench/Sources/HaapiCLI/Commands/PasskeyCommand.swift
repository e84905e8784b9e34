import ArgumentParser
import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import Passkeys

/// `haapi passkey register|authenticate`: the software authenticator, as a browser would use it; prints the
/// JSON a browser sends to the relying party.
struct PasskeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkey",
        abstract: "Create and use passkeys with the software authenticator (credentials kept in a sealed store).",
        discussion: HelpExamples.discussion(
            "", "haapi passkey signup --rp http://localhost:8080 --user alice --store ~/.haapi/passkeys",
            "haapi passkey signin --rp http://localhost:8080 --store ~/.haapi/passkeys"),
        subcommands: [Register.self, Authenticate.self, SignUp.self, SignIn.self])

    /// The store and authenticator options of `signup` / `signin`.
    struct Account: ParsableArguments {
        @Option(
            name: .long,
            help: "The web app's base URL (it serves /registration_initialize and the other passkey endpoints).")
        var rp: String

        @Option(name: .long, help: "The credential store: a folder, created 0700 with 0600 sealed files.")
        var store: String

        func manager() throws -> AccountManager {
            guard let base = URL(string: rp), base.scheme == "http" || base.scheme == "https" else {
                throw ValidationError("--rp must be an http(s) URL")
            }
            let storage: FileStorage
            do { storage = try FileStorage(directory: URL(fileURLWithPath: store)) } catch {
                throw ValidationError("cannot open the store \(store): \(error)")
            }
            return AccountManager(
                client: RelyingPartyClient(baseURL: base, transport: commandTransport()),
                authenticator: SoftwareAuthenticator(storage: storage))
        }

        static func report(_ account: RelyingPartyClient.Account, _ verb: String) {
            print("\(verb) \(account.userName) (user \(account.userID), credential \(account.credentialID))")
        }
    }

    struct SignUp: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "signup", abstract: "Create an account with a new passkey at a web app.",
            discussion: HelpExamples.discussion(
                "", "haapi passkey signup --rp http://localhost:8080 --user alice --store ~/.haapi/passkeys"))
        @OptionGroup var account: Account
        @Option(name: .long, help: "The account name.") var user: String

        func run() async throws {
            Account.report(try await account.manager().signUp(userName: user), "Signed up")
        }
    }

    struct SignIn: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "signin", abstract: "Sign in to a web app with a stored passkey.",
            discussion: HelpExamples.discussion(
                "", "haapi passkey signin --rp http://localhost:8080 --store ~/.haapi/passkeys"))
        @OptionGroup var account: Account

        func run() async throws {
            Account.report(try await account.manager().signIn(), "Signed in as")
        }
    }

    struct Common: ParsableArguments {
        @Option(
            name: .long,
            help:
                "The RP's options (PublicKeyCredentialCreationOptionsJSON / RequestOptionsJSON), or - for standard input."
        )
        var options: String

        @Option(name: .long, help: "The origin the browser would be at, e.g. https://login.example.com.")
        var origin: String

        @Option(name: .long, help: "The credential store: a folder, created 0700 with 0600 sealed files.")
        var store: String

        @Flag(
            name: .long,
            help: "Do not set the user-verified flag (as an authenticator without a PIN or biometrics would).")
        var noUserVerification = false

        func authenticator(attestation: SoftwareAuthenticator.Attestation = .none) throws -> SoftwareAuthenticator {
            let storage: FileStorage
            do { storage = try FileStorage(directory: URL(fileURLWithPath: store)) } catch {
                throw ValidationError("cannot open the store \(store): \(error)")
            }
            return SoftwareAuthenticator(
                storage: storage, policy: .init(userVerified: !noUserVerification, attestation: attestation))
        }

        func optionsJSON() throws -> JSONValue {
            let data = try StandardStreams.read(options, what: "the options file")
            do { return try JSONParser().parse(data) } catch {
                throw CLIFailure("the options in \(options) are not JSON: \(error)", code: ExitCodes.dataError)
            }
        }
    }

    struct Register: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a credential; prints RegistrationResponseJSON.",
            discussion: HelpExamples.discussion(
                "",
                "haapi passkey register --options creation-options.json --origin https://login.example.com --store ~/.haapi/passkeys",
                "curl -s -X POST http://localhost:8080/registration_initialize -d user_name=alice | haapi passkey register --options - --origin http://localhost:8080 --store keys"
            ))
        @OptionGroup var common: Common
        @Option(name: .long, help: "none or packed (self attestation).") var attestation = "none"

        func run() async throws {
            guard let format = SoftwareAuthenticator.Attestation(rawValue: attestation) else {
                throw ValidationError("--attestation must be none or packed")
            }
            let options = try PublicKeyCredentialCreationOptions(json: try common.optionsJSON())
            let response = try await common.authenticator(attestation: format).register(options, origin: common.origin)
            print(response.json.serialized())
        }
    }

    struct Authenticate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign the RP's challenge; prints AuthenticationResponseJSON.",
            discussion: HelpExamples.discussion(
                "",
                "haapi passkey authenticate --options request-options.json --origin https://login.example.com --store ~/.haapi/passkeys"
            ))
        @OptionGroup var common: Common

        func run() async throws {
            let options = try PublicKeyCredentialRequestOptions(json: try common.optionsJSON())
            let response = try await common.authenticator().authenticate(options, origin: common.origin)
            print(response.json.serialized())
        }
    }
}
