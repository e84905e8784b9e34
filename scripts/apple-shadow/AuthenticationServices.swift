// Stand-in declarations of the AuthenticationServices and UIKit API our Apple adapters call, as Apple documents
// them, for scripts/apple-shadow.sh. Not an SDK: only the names and types our code uses. Two markers are
// replaced per variant: `ISOLATED` (the SDK's delegate protocols main-actor isolated, as newer SDKs mark
// them, or not) and `SENDABLE` (completion handlers `@Sendable` or not).
import Foundation

// UIKit: windows and the application are main-actor isolated classes (hence Sendable).
@MainActor public class UIWindow: NSObject {}
@MainActor class UIScene: NSObject {}
@MainActor class UIWindowScene: UIScene { var keyWindow: UIWindow? { nil } }
@MainActor class UIApplication: NSObject {
    class var shared: UIApplication { fatalError() }
    var connectedScenes: Set<UIScene> { [] }
    func canOpenURL(_ url: URL) -> Bool { true }
    func open(_ url: URL, options: [String: Any] = [:]) async -> Bool { true }
}
public typealias ASPresentationAnchor = UIWindow

// Web authentication sessions.
class ASWebAuthenticationSession: NSObject {
    typealias CompletionHandler = SENDABLE (URL?, (any Error)?) -> Void
    class Callback: NSObject {
        @available(iOS 17.4, macOS 14.4, *) class func customScheme(_ customScheme: String) -> Self { fatalError() }
        @available(iOS 17.4, macOS 14.4, *) class func https(host: String, path: String) -> Self { fatalError() }
    }
    init(url URL: URL, callbackURLScheme: String?, completionHandler: @escaping CompletionHandler) {}
    @available(iOS 17.4, macOS 14.4, *)
    init(url URL: URL, callback: Callback, completionHandler: @escaping CompletionHandler) {}
    weak var presentationContextProvider: (any ASWebAuthenticationPresentationContextProviding)?
    var prefersEphemeralWebBrowserSession = false
    func start() -> Bool { true }
    func cancel() {}
}
ISOLATED protocol ASWebAuthenticationPresentationContextProviding: NSObjectProtocol {
    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor
}

// ASAuthorization: plain Objective-C classes, not Sendable.
class ASAuthorizationRequest: NSObject {}
protocol ASAuthorizationCredential: NSObjectProtocol {}
class ASAuthorization: NSObject { var credential: any ASAuthorizationCredential { fatalError() } }
struct ASAuthorizationPublicKeyCredentialUserVerificationPreference: RawRepresentable {
    var rawValue: String
    init(rawValue: String) { self.rawValue = rawValue }
}
struct ASAuthorizationPublicKeyCredentialAttestationKind: RawRepresentable {
    var rawValue: String
    init(rawValue: String) { self.rawValue = rawValue }
}
struct ASCOSEAlgorithmIdentifier: RawRepresentable {
    var rawValue: Int
    init(rawValue: Int) { self.rawValue = rawValue }
}
class ASAuthorizationPublicKeyCredentialParameters: NSObject { init(algorithm: ASCOSEAlgorithmIdentifier) {} }
class ASAuthorizationPlatformPublicKeyCredentialDescriptor: NSObject { init(credentialID: Data) {} }
class ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor: NSObject {
    struct Transport { static var allSupported: [Transport] { [] } }
    init(credentialID: Data, transports: [Transport]) {}
}
class ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest: ASAuthorizationRequest {
    var userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference(rawValue: "")
    var attestationPreference = ASAuthorizationPublicKeyCredentialAttestationKind(rawValue: "")
}
class ASAuthorizationSecurityKeyPublicKeyCredentialRegistrationRequest: ASAuthorizationRequest {
    var userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference(rawValue: "")
    var attestationPreference = ASAuthorizationPublicKeyCredentialAttestationKind(rawValue: "")
    var credentialParameters: [ASAuthorizationPublicKeyCredentialParameters] = []
    var excludedCredentials: [ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor]?
}
class ASAuthorizationPlatformPublicKeyCredentialAssertionRequest: ASAuthorizationRequest {
    var allowedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor] = []
    var userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference(rawValue: "")
}
class ASAuthorizationSecurityKeyPublicKeyCredentialAssertionRequest: ASAuthorizationRequest {
    var allowedCredentials: [ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor] = []
    var userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference(rawValue: "")
}
class ASAuthorizationPlatformPublicKeyCredentialProvider: NSObject {
    init(relyingPartyIdentifier: String) {}
    func createCredentialRegistrationRequest(
        challenge: Data, name: String, userID: Data
    ) -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest { fatalError() }
    func createCredentialAssertionRequest(
        challenge: Data
    ) -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest { fatalError() }
}
class ASAuthorizationSecurityKeyPublicKeyCredentialProvider: NSObject {
    init(relyingPartyIdentifier: String) {}
    func createCredentialRegistrationRequest(
        challenge: Data, displayName: String, name: String, userID: Data
    ) -> ASAuthorizationSecurityKeyPublicKeyCredentialRegistrationRequest { fatalError() }
    func createCredentialAssertionRequest(
        challenge: Data
    ) -> ASAuthorizationSecurityKeyPublicKeyCredentialAssertionRequest { fatalError() }
}
protocol ASPublicKeyCredential: ASAuthorizationCredential {
    var rawClientDataJSON: Data { get }
    var credentialID: Data { get }
}
protocol ASAuthorizationPublicKeyCredentialRegistration: ASPublicKeyCredential {
    var rawAttestationObject: Data? { get }
}
protocol ASAuthorizationPublicKeyCredentialAssertion: ASPublicKeyCredential {
    var rawAuthenticatorData: Data! { get }
    var userID: Data! { get }
    var signature: Data! { get }
}
extension ASAuthorizationController {
    struct RequestOptions: OptionSet {
        let rawValue: UInt
        static let preferImmediatelyAvailableCredentials = RequestOptions(rawValue: 1)
    }
}
class ASAuthorizationController: NSObject {
    init(authorizationRequests: [ASAuthorizationRequest]) {}
    weak var delegate: (any ASAuthorizationControllerDelegate)?
    weak var presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)?
    func performRequests() {}
    func performRequests(options: RequestOptions) {}
}
ISOLATED protocol ASAuthorizationControllerDelegate: NSObjectProtocol {
    func authorizationController(
        controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization)
    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error)
}
ISOLATED protocol ASAuthorizationControllerPresentationContextProviding: NSObjectProtocol {
    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor
}
