import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import Hummingbird

extension AuthHubRoutes {
    /// POST /factor/v1/PasswordAuthenticator at PASSWORD_AUTH; the password may be encrypted (and must be, when
    /// the tenant says so). A field that does not open ends the flow: it was changed, or sealed for another flow.
    func passwordFactor(_ call: AuthHubCall) async -> Response {
        await withAuthHubFlow(call, allowed: ["PASSWORD_AUTH"]) { flow in
            guard let sent = call.string("password"), !sent.isEmpty else {
                return .retry(code: "3001036", message: "Invalid request: password is required")
            }
            let password: String
            switch await readProtectedField(sent, name: "password", tenant: call.tenant, exchange: flow.exchange) {
            case .success(let opened): password = opened
            case .failure(let refusal): return .fail(code: "0000012", message: refusal.message)
            }
            switch try await checkPassword(username: flow.username ?? flow.subject, password: password) {
            case .success:
                flow.methods.append("pwd")
                return afterPassword(call.tenant)
            case .locked:
                return .fail(code: "1004002", message: "Account is locked")
            case .incorrect:
                return .retry(code: "1004003", message: "Invalid credentials")
            case .busy:
                return .fail(code: "0000500", message: "The server is busy; try again in a moment")
            }
        }
    }

    /// POST /factor/v1/OTPGenerator: e-mails a code for the listed credential (also a resend at EMAIL_OTP_AUTH).
    func otpGenerator(_ call: AuthHubCall) async -> Response {
        await withAuthHubFlow(call, allowed: ["EMAIL_OTP_SELECTION", "EMAIL_OTP_AUTH"]) { flow in
            guard let credId = flow.emailCredential, call.string("credId") == credId, let username = flow.username,
                let email = try await store.user(named: username)?.email
            else { return .retry(code: "3001036", message: "Invalid request: unknown credId") }
            // Int.random uses the system CSPRNG.
            let code = String(format: "%06d", Int.random(in: 0..<1_000_000))
            flow.otp = (TokenHash.of(code), clock().addingTimeInterval(TimeInterval(configuration.lifetimes.emailCode)))
            await outbox.send(
                .init(
                    to: email, username: username, subject: "Your Authentication Hub code",
                    body: "Your code is \(code). It expires in \(configuration.lifetimes.emailCode / 60) minutes.",
                    code: code, sentAt: clock()))
            return .next(
                "EMAIL_OTP_AUTH", ["data": .object(["credId": .string(credId), "message": "A code was sent"])])
        }
    }

    /// POST /factor/v1/OTPVerifier at EMAIL_OTP_AUTH.
    func otpVerifier(_ call: AuthHubCall) async -> Response {
        await withAuthHubFlow(call, allowed: ["EMAIL_OTP_AUTH"]) { flow in
            guard let credId = flow.emailCredential, call.string("credId") == credId, let otp = call.string("otp")
            else {
                return .retry(code: "3001036", message: "Invalid request: credId and otp are required")
            }
            guard let pending = flow.otp, pending.expiresAt > clock() else {
                return .retry(code: "3001033", message: "The code has expired; generate a new one")
            }
            guard ConstantTime.equals(TokenHash.of(otp), pending.codeHash) else {
                return .retry(code: "3001033", message: "Invalid credentials")
            }
            flow.otp = nil
            flow.methods.append("otp")
            return .allowed
        }
    }
}
