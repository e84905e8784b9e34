import Foundation

/// A step whose one client-operation action asks the client to do something outside the API.
public protocol ClientOperationStep: HaapiRepresentation {
    /// The step's client-operation action.
    var clientOperationAction: ClientOperationAction { get }
}

extension ClientOperationStep {
    /// What to do once the operation has succeeded.
    public var continueActions: [any Action] { clientOperationAction.model.continueActions }
    /// What to do when the operation fails.
    public var errorActions: [any Action] { clientOperationAction.model.errorActions }
    /// The form to submit once the operation has run.
    public var continueFormActionModel: FormActionModel? {
        continueActions.lazy.compactMap { ($0 as? FormAction)?.model }.first
    }
    /// A cancel form offered beside the operation, if any.
    public var cancelAction: FormAction? { content.formActions.first { $0.kind == .cancel } }

    /// The name of the first client-filled field of the continue form, or `fallback`.
    func contextFieldName(or fallback: String) -> String {
        continueFormActionModel?.fields.first { $0.type == .context }?.name ?? fallback
    }
}

/// Open a URL in the system browser and resume the flow with the nonce the browser brings back.
public struct ExternalBrowserClientOperationStep: ClientOperationStep {
    public let content: RepresentationContent
    public let clientOperationAction: ClientOperationAction
    /// The address to open.
    public let actionModel: ExternalBrowserClientOperationActionModel

    /// The URL to open: the operation's `href` with `redirect_uri` set to the app's registered redirect URI.
    /// A relative `href` is resolved against `baseURL`.
    public func urlToLaunch(redirectTo redirectURI: String, relativeTo baseURL: URL? = nil) -> URL? {
        guard let resolved = URL(string: actionModel.href, relativeTo: baseURL)?.absoluteURL,
            var components = URLComponents(url: resolved, resolvingAgainstBaseURL: false)
        else { return nil }
        var items = (components.queryItems ?? []).filter { $0.name != "redirect_uri" }
        items.append(URLQueryItem(name: "redirect_uri", value: redirectURI))
        components.percentEncodedQuery = FormURLEncoding.encode(items.map { ($0.name, $0.value ?? "") })
        return components.url
    }

    /// The continue-form parameters taken from the URL the browser redirected the app to,
    /// or `nil` when that URL carries no resume nonce.
    public func formattedParametersFromURL(_ url: URL) -> [String: String]? {
        guard let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems,
            let nonce = items.first(where: { $0.name == "_resume_nonce" })?.value, !nonce.isEmpty
        else { return nil }
        return [contextFieldName(or: "_resume_nonce"): nonce]
    }
}

/// A step that asks the client to open the BankID app on this device; its action model carries the launch address.
public struct BankIdClientOperationStep: ClientOperationStep {
    public let content: RepresentationContent
    public let clientOperationAction: ClientOperationAction
    /// How to start BankID.
    public let actionModel: BankIdClientOperationActionModel
}

/// A step that asks the client to activate Encap on this device.
public struct EncapClientOperationStep: ClientOperationStep {
    public let content: RepresentationContent
    public let clientOperationAction: ClientOperationAction
    /// How to activate Encap.
    public let actionModel: EncapAutoActivationClientOperationActionModel
}

/// Create a WebAuthn credential and post it back with the continue form.
public struct WebAuthnRegistrationClientOperationStep: ClientOperationStep {
    public let content: RepresentationContent
    public let clientOperationAction: ClientOperationAction
    /// The credential creation options.
    public let actionModel: WebAuthnRegistrationClientOperationActionModel

    /// Offered when no authenticator can be used (typically a browser fallback).
    public var fallbackActions: [any Action] { errorActions }

    /// The continue-form parameters for a new credential: the WebAuthn `RegistrationResponseJSON`
    /// under the field that matches the options used (`credential`, `platformCredential` or
    /// `crossPlatformCredential`).
    public func formattedParametersForRegistration(
        credentialOptions: WebAuthnRegistrationClientOperationActionModel.CredentialRequestOptions,
        attestationObject: Data,
        rawClientDataJSON: Data,
        credentialID: Data,
        credentialParamType: String = "public-key"
    ) -> [String: JSONValue] {
        let encodedID = JSONValue.string(Base64URL.encode(credentialID))
        let credential: JSONValue = [
            "id": encodedID,
            "rawId": encodedID,
            "type": .string(credentialParamType),
            "response": [
                "clientDataJSON": .string(Base64URL.encode(rawClientDataJSON)),
                "attestationObject": .string(Base64URL.encode(attestationObject)),
            ],
        ]
        return [actionModel.credentialFieldName(for: credentialOptions): credential]
    }
}

/// Sign the server's challenge with an existing credential and post the assertion back.
public struct WebAuthnAuthenticationClientOperationStep: ClientOperationStep {
    public let content: RepresentationContent
    public let clientOperationAction: ClientOperationAction
    /// The credential request options.
    public let actionModel: WebAuthnAuthenticationClientOperationActionModel

    /// What to offer when the passkey cannot be used.
    public var fallbackActions: [any Action] { errorActions }

    /// The continue-form parameters for an assertion: the WebAuthn `AuthenticationResponseJSON`
    /// under the continue form's credential field.
    public func formattedParametersForAssertion(
        rawAuthenticatorData: Data,
        rawClientDataJSON: Data,
        signature: Data,
        credentialID: Data,
        credentialParamType: String = "public-key",
        userID: Data? = nil
    ) -> [String: JSONValue] {
        var response: JSONObject = [
            "clientDataJSON": .string(Base64URL.encode(rawClientDataJSON)),
            "authenticatorData": .string(Base64URL.encode(rawAuthenticatorData)),
            "signature": .string(Base64URL.encode(signature)),
        ]
        if let userID { response["userHandle"] = .string(Base64URL.encode(userID)) }
        let encodedID = JSONValue.string(Base64URL.encode(credentialID))
        let credential: JSONValue = [
            "id": encodedID,
            "rawId": encodedID,
            "type": .string(credentialParamType),
            "response": .object(response),
        ]
        return [contextFieldName(or: "credential"): credential]
    }
}

/// A client operation this SDK does not know; render its continue and error actions.
public struct GenericClientOperationStep: ClientOperationStep {
    public let content: RepresentationContent
    public let clientOperationAction: ClientOperationAction
}
