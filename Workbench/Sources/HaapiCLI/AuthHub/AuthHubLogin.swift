@_spi(Tooling) import AuthHub
import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import Passkeys

/// Walks an Authentication Hub flow in the terminal: password (encrypted when the tenant says so), then the
/// factor the hub offers (e-mail OTP, or a passkey from a software authenticator), to AUTH_ALLOWED.
struct AuthHubLogin {
    let address: AHServerAddress
    let bearer: String
    let user: String
    let factor: String?
    let passkeys: SoftwareAuthenticator?
    let documentDomain: String
    /// Reads e-mailed codes from the dev server's outbox instead of asking (haapi serve only).
    let devInbox: URL?
    let io: TerminalIO

    struct Outcome {
        let response: AHFlowResponse
        let encryptedFields: [String]
    }

    enum Failure: Error, CustomStringConvertible {
        case flow(AHFlowError)
        case setup(String)

        var description: String {
            switch self {
            case .flow(let error): "\(error)"
            case .setup(let detail): detail
            }
        }
    }

    func run() async throws(Failure) -> Outcome {
        let core = AHCore()
        let headers: [String: Any] = [AHConstants.HttpHeader.KeyAz: "Bearer " + bearer]
        let settings: AHCoreResult
        do {
            settings = try await core.getFieldsToBeEncryptedInAuthFlow(address: address, requestHeaders: headers)
        } catch { throw .setup("\(error)") }
        guard settings.isSuccess else {
            throw .setup("BrandingSettings: \(settings.serverError.map(\.description) ?? settings.message)")
        }
        let fields = settings.data[AHConstants.GenericKeys.FieldsToBeEncrypted] as? [String] ?? []
        if !fields.isEmpty { io.say(io.paint("The tenant encrypts: \(fields.joined(separator: ", "))", .dim)) }
        let flow = AHFlow(address: address, requestHeaders: headers, core: core)
        let parameters: [String: Any] = ["subject": user, "channel": "mobile", "action": "authenticate"]
        var step: AHFlowResponse
        do { step = try await flow.start(authRequestParams: parameters, fieldsTobeEncryptedList: fields) } catch {
            throw .flow(error)
        }
        while true {
            let action = step.nextAction ?? .other("none")
            io.say(io.paint("→ \(action.rawValue)", .cyan))
            do {
                switch action {
                case .authAllowed:
                    return Outcome(response: step, encryptedFields: fields)
                case .passwordAuth:
                    guard let password = await io.readLine(prompt: "Password: ", secret: true) else {
                        throw Failure.setup("no password on standard input")
                    }
                    let value: String
                    do {
                        value = fields.contains("password") ? try core.encryptData(plainText: password) : password
                    } catch {
                        throw Failure.setup("cannot encrypt the password: \(error)")
                    }
                    step = try await retrying(step) { try await flow.authenticatePassword(value) }
                case .factorSelection:
                    step = try await flow.selectFactor(try await chooseFactor(step.currentFactors))
                case .emailOTPSelection, .smsOTPSelection, .otpSelection:
                    guard let credential = step.credentials.first else {
                        throw Failure.setup("the hub listed no credential for the code")
                    }
                    io.say("Sending a code to \(credential.credValue ?? credential.credType)")
                    step = try await flow.generateOTP(credId: credential.credId, credType: credential.credType)
                case .emailOTPAuth, .smsOTPAuth:
                    guard let credId = step.stepData["credId"] as? String else {
                        throw Failure.setup("the hub named no credential")
                    }
                    guard let code = try await readCode() else { throw Failure.setup("no code on standard input") }
                    step = try await retrying(step) { try await flow.verifyOTP(credId: credId, otp: code) }
                case .fidoRegisterGenerateChallenge:
                    io.say("Creating a passkey for \(user)")
                    step = try await flow.registerPasskey(
                        with: try authenticator(), documentDomain: documentDomain, userName: user,
                        deviceName: "haapi-cli")
                case .fidoAuthGenerateChallenge:
                    io.say("Signing in with a passkey")
                    step = try await flow.authenticateWithPasskey(
                        try authenticator(), documentDomain: documentDomain, userName: user)
                default:
                    throw Failure.setup("the hub asks for \(action.rawValue), which this command does not handle")
                }
            } catch let error as AHFlowError {
                throw .flow(error)
            } catch let error as Failure {
                throw error
            } catch {
                throw .setup("\(error)")
            }
        }
    }

    /// A wrong password or code: say so and stay on the step (the hub has handed out a new flow state).
    private func retrying(
        _ current: AHFlowResponse, _ call: () async throws -> AHFlowResponse
    ) async throws -> AHFlowResponse {
        do { return try await call() } catch {
            guard case .server(let server)? = error as? AHFlowError,
                server.kind == .invalidCredentials || server.kind == .invalidOTP
            else { throw error }
            io.say(io.paint("✗ \(server.message)", .red))
            return current
        }
    }

    private func chooseFactor(_ offered: [String]) async throws -> String {
        if let factor {
            guard offered.contains(factor) else {
                throw Failure.setup("the hub offers \(offered.joined(separator: ", ")), not \(factor)")
            }
            return factor
        }
        guard io.isInteractive, offered.count > 1 else { return offered.first ?? "EMAILOTP" }
        for (index, name) in offered.enumerated() { io.say("  \(index + 1)) \(name)") }
        while true {
            guard let answer = await io.readLine(prompt: "Choose 1–\(offered.count): ") else {
                throw Failure.setup("no choice on standard input")
            }
            if let number = Int(answer), offered.indices.contains(number - 1) { return offered[number - 1] }
            if let named = offered.first(where: { $0.caseInsensitiveCompare(answer) == .orderedSame }) { return named }
        }
    }

    private func authenticator() throws -> SoftwareAuthenticator {
        guard let passkeys else { throw Failure.setup("the FIDO factor needs --passkey-store DIR") }
        return passkeys
    }

    private func readCode() async throws -> String? {
        guard let devInbox else { return await io.readLine(prompt: "Code: ") }
        // The newest code for the user, as an inbox would show it.
        let response = try await defaultHTTPTransport().send(HTTPRequest(method: "GET", url: devInbox))
        let body = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        let messages = body?["messages"] as? [[String: Any]] ?? []
        guard
            let code = messages.last(where: { $0["username"] as? String == user && $0["code"] != nil })?["code"]
                as? String
        else { return nil }
        io.say("Code: \(code) (from the dev server's outbox)")
        return code
    }
}
