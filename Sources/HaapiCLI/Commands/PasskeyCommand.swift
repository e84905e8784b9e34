import ArgumentParser
import Foundation
import HaapiDriver
import Passkeys

/// `haapi passkey register|authenticate`: the software authenticator, as a browser would use it; prints the
/// JSON a browser sends to the relying party.
struct PasskeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkey",
        abstract: "Create and use passkeys with the software authenticator (credentials kept in a sealed store).",
        subcommands: [Register.self, Authenticate.self])

    struct Common: ParsableArguments {
        @Option(name: .long, help: "The RP's options (PublicKeyCredentialCreationOptionsJSON / RequestOptionsJSON), or - for standard input.")
        var options: String

        @Option(name: .long, help: "The origin the browser would be at, e.g. https://login.example.com.")
        var origin: String

        @Option(name: .long, help: "The credential store: a folder, created 0700 with 0600 sealed files.")
        var store: String

        @Flag(name: .long, help: "Do not set the user-verified flag (as an authenticator without a PIN or biometrics would).")
        var noUserVerification = false

        func authenticator(attestation: SoftwareAuthenticator.Attestation = .none) throws -> SoftwareAuthenticator {
            let storage: FileStorage
            do { storage = try FileStorage(directory: URL(fileURLWithPath: store)) } catch { throw ValidationError("cannot open the store \(store): \(error)") }
            return SoftwareAuthenticator(storage: storage, policy: .init(userVerified: !noUserVerification, attestation: attestation))
        }

        func optionsJSON() throws -> JSONValue {
            do { return try JSONParser().parse(try StandardStreams.read(options)) } catch {
                StandardStreams.printError("haapi passkey: cannot read the options: \(error)")
                throw ExitCode(ExitCodes.dataError)
            }
        }
    }

    struct Register: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a credential; prints RegistrationResponseJSON.")
        @OptionGroup var common: Common
        @Option(name: .long, help: "none or packed (self attestation).") var attestation = "none"

        func run() async throws {
            guard let format = SoftwareAuthenticator.Attestation(rawValue: attestation) else { throw ValidationError("--attestation must be none or packed") }
            do {
                let options = try PublicKeyCredentialCreationOptions(json: try common.optionsJSON())
                let response = try await common.authenticator(attestation: format).register(options, origin: common.origin)
                print(response.json.serialized())
            } catch let error as WebAuthnError {
                StandardStreams.printError("haapi passkey register: \(error)")
                throw ExitCode(1)
            }
        }
    }

    struct Authenticate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Sign the RP's challenge; prints AuthenticationResponseJSON.")
        @OptionGroup var common: Common

        func run() async throws {
            do {
                let options = try PublicKeyCredentialRequestOptions(json: try common.optionsJSON())
                let response = try await common.authenticator().authenticate(options, origin: common.origin)
                print(response.json.serialized())
            } catch let error as WebAuthnError {
                StandardStreams.printError("haapi passkey authenticate: \(error)")
                throw ExitCode(1)
            }
        }
    }
}
