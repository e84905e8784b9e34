import Foundation
@_spi(Tooling) import HaapiDriver

/// Talks to a web app's passkey endpoints (`/registration_initialize?user_name=`, `/registration_finalize`,
/// `/authentication_initialize`, `/authentication_finalize`; ../shared/research/authhub-hanko.md B.2).
public struct RelyingPartyClient: Sendable {
    /// The web app's address; the endpoint paths are appended to it.
    public let baseURL: URL
    /// How requests reach the web app.
    public let transport: any HTTPTransport

    /// A client for the web app at `baseURL`.
    public init(baseURL: URL, transport: any HTTPTransport = defaultHTTPTransport()) {
        self.baseURL = baseURL
        self.transport = transport
    }

    /// The account the RP confirmed.
    public struct Account: Sendable, Equatable {
        /// The passkey's credential id, as the RP sends it.
        public let credentialID: String
        /// The RP's id for the user.
        public let userID: String
        /// The account's name.
        public let userName: String
        /// After a sign-in, the RP's session for the account (when the RP gives one): it lets the signed-in
        /// user add another passkey to the same account (`registrationInitialize(userName:session:)`).
        public let session: String?

        /// Two answers name the same account when credential, user id and name match; sessions differ per sign-in.
        public static func == (lhs: Account, rhs: Account) -> Bool {
            lhs.credentialID == rhs.credentialID && lhs.userID == rhs.userID && lhs.userName == rhs.userName
        }
    }

    /// Asks for creation options. Without `session` this is a sign-up for a new account; with the session of
    /// a signed-in account it adds a passkey to that account.
    public func registrationInitialize(
        userName: String, session: String? = nil
    ) async throws(WebAuthnError) -> PublicKeyCredentialCreationOptions {
        var components = URLComponents(
            url: baseURL.appendingPathComponent("registration_initialize"), resolvingAgainstBaseURL: true)
        components?.queryItems = [URLQueryItem(name: "user_name", value: userName)]
        guard let url = components?.url else { throw .malformed("bad RP URL") }
        var request = HTTPRequest(method: "GET", url: url)
        if let session { request.setHeader("Authorization", "Bearer " + session) }
        return try PublicKeyCredentialCreationOptions(json: try await send(request))
    }

    /// Sends the authenticator's registration and returns the account the RP created or extended.
    public func registrationFinalize(_ response: RegistrationResponse) async throws(WebAuthnError) -> Account {
        try Self.account(try await send(post("registration_finalize", response.json)))
    }

    /// Asks for request options to sign in with a passkey.
    public func authenticationInitialize() async throws(WebAuthnError) -> PublicKeyCredentialRequestOptions {
        try PublicKeyCredentialRequestOptions(
            json: try await send(
                HTTPRequest(method: "GET", url: baseURL.appendingPathComponent("authentication_initialize"))))
    }

    /// Sends the authenticator's assertion and returns the account that signed in.
    public func authenticationFinalize(_ response: AuthenticationResponse) async throws(WebAuthnError) -> Account {
        try Self.account(try await send(post("authentication_finalize", response.json)))
    }

    private func post(_ path: String, _ body: JSONValue) -> HTTPRequest {
        HTTPRequest(
            method: "POST", url: baseURL.appendingPathComponent(path), headers: [("Content-Type", "application/json")],
            body: Data(body.serialized().utf8))
    }

    private func send(_ request: HTTPRequest) async throws(WebAuthnError) -> JSONValue {
        var outgoing = request
        outgoing.setHeader("Accept", "application/json")
        let response: HTTPResponse
        do {
            response = try await LostAnswerRetry.run(method: outgoing.method, url: outgoing.url) {
                () async throws(TransportError) in try await transport.send(outgoing)
            }
        } catch {
            throw .unreachable(error)
        }
        let json = try? JSONParser(limits: .init(maxBytes: 256 * 1024, maxDepth: 16)).parse(response.body)
        guard response.statusCode == 200, let json else {
            let message = json?["error"]?.stringValue ?? json?["message"]?.stringValue ?? "HTTP \(response.statusCode)"
            throw .verificationFailed("the RP refused: \(message)")
        }
        return json
    }

    static func account(_ json: JSONValue) throws(WebAuthnError) -> Account {
        let credential = json["credential"]
        guard let id = credential?["id"]?.stringValue ?? json["credential_id"]?.stringValue else {
            throw .malformed("the RP's answer names no credential")
        }
        let user = credential?["user"]
        return Account(
            credentialID: id, userID: user?["id"]?.stringValue ?? json["user_id"]?.stringValue ?? "",
            userName: user?["name"]?.stringValue ?? "",
            session: json["session"]?.stringValue)
    }
}

/// Sign-up and sign-in with passkeys against a web app RP, in the pattern of seed 004's account manager.
public struct AccountManager: Sendable {
    /// The web app's passkey endpoints.
    public let client: RelyingPartyClient
    /// Creates and uses the passkeys.
    public let authenticator: any WebAuthnAuthenticator
    /// The origin the authenticator acts for; by default the RP's own origin.
    public let origin: String

    /// An account manager for the web app behind `client`; `origin` defaults to the RP's own.
    public init(client: RelyingPartyClient, authenticator: any WebAuthnAuthenticator, origin: String? = nil) {
        self.client = client
        self.authenticator = authenticator
        var components = URLComponents(url: client.baseURL, resolvingAgainstBaseURL: true)
        components?.path = ""
        components?.query = nil
        self.origin = origin ?? components?.string ?? client.baseURL.absoluteString
    }

    /// Creates an account named `userName` with a new passkey.
    public func signUp(userName: String) async throws(WebAuthnError) -> RelyingPartyClient.Account {
        let options = try await client.registrationInitialize(userName: userName)
        return try await client.registrationFinalize(try await authenticator.register(options, origin: origin))
    }

    /// Adds a passkey to the account `signedIn` (a `signIn()` result carrying the RP's session).
    public func addPasskey(
        to signedIn: RelyingPartyClient.Account
    ) async throws(WebAuthnError) -> RelyingPartyClient.Account {
        guard let session = signedIn.session else {
            throw .notAllowed("the RP gave no session for this account; sign in first")
        }
        let options = try await client.registrationInitialize(userName: signedIn.userName, session: session)
        return try await client.registrationFinalize(try await authenticator.register(options, origin: origin))
    }

    /// Signs in with a passkey the authenticator holds for this RP.
    public func signIn() async throws(WebAuthnError) -> RelyingPartyClient.Account {
        let options = try await client.authenticationInitialize()
        return try await client.authenticationFinalize(try await authenticator.authenticate(options, origin: origin))
    }
}
